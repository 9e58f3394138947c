package dev.durability.admin.pages;

import dev.durability.admin.boundary.PipelineOverview;
import dev.durability.admin.boundary.Replays;
import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayOutcome;
import dev.durability.admin.control.ReplayRequest;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The replay page: a preview (a dry run) first, then a confirm that replays exactly the previewed window and
 * scope, whatever the form fields hold by then (the confirm button says what it will replay).
 */
@Named
@ViewScoped
public class ReplayPage implements Serializable {
    private static final long serialVersionUID = 1L;

    @Inject
    Replays replays;

    @Inject
    PipelineOverview overview;

    private String from;
    private String to;
    private String eventType;
    private String scope = ReplayRequest.Scope.ALL.parameter();
    private ReplayOutcome preview;
    private ReplayOutcome done;
    private List<String> eventTypes;

    public ReplayPage() {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
        to = ReplayRequest.rfc3339(now.plusMinutes(1));
        from = ReplayRequest.rfc3339(now.minusHours(1));
    }

    public void preview() {
        done = null;
        preview = null;
        try {
            preview = replays.replay(from, to, eventType, scope, "true", Channel.FORM);
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
    }

    public void confirm() {
        if (preview == null) {
            Messages.error("preview the replay first");
            return;
        }
        ReplayRequest request = preview.request();
        try {
            done = replays.replay(
                    ReplayRequest.rfc3339(request.from()),
                    ReplayRequest.rfc3339(request.to()),
                    request.eventType(),
                    request.scope().parameter(),
                    "false",
                    Channel.FORM);
            Messages.info("Replay done: " + done.restaged() + " events re-staged.");
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
        preview = null;
    }

    public void cancel() {
        preview = null;
    }

    /** Read once per view: the page's suggestions, not a live list. */
    public List<String> getEventTypes() {
        if (eventTypes == null) {
            eventTypes = List.copyOf(overview.recentEventTypes());
        }
        return eventTypes;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }

    public String getEventType() {
        return eventType;
    }

    public void setEventType(String eventType) {
        this.eventType = eventType;
    }

    public String getScope() {
        return scope;
    }

    public void setScope(String scope) {
        this.scope = scope;
    }

    public ReplayOutcome getPreview() {
        return preview;
    }

    public ReplayOutcome getDone() {
        return done;
    }
}
