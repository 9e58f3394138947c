package dev.durability.admin.pages;

import dev.durability.admin.boundary.PipelineOverview;
import dev.durability.admin.entity.AdminAction;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/** The recent admin actions, newest first. */
@Named
@RequestScoped
public class AuditPage {
    static final int LISTED = 200;

    @Inject
    PipelineOverview overview;

    private List<AdminAction> actions;

    public List<AdminAction> getActions() {
        if (actions == null) {
            actions = overview.recentActions(LISTED);
        }
        return actions;
    }
}
