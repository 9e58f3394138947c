package dev.durability.admin.pages;

import dev.durability.admin.boundary.DeadLetterTriage;
import dev.durability.admin.boundary.PipelineOverview;
import dev.durability.admin.entity.AdminAction;
import dev.durability.deadletter.entity.DeadLetterCounts;
import dev.durability.deadletter.entity.DeadLetterView;
import dev.durability.inbox.entity.InboxQueueStats;
import dev.durability.outbox.entity.OutboxStatus;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/** The status page: outbox, inbox, dead letters and the latest admin actions, read once per request. */
@Named
@RequestScoped
public class StatusPage {
    @Inject
    PipelineOverview overview;

    @Inject
    DeadLetterTriage triage;

    private OutboxStatus outbox;
    private List<InboxQueueStats> inbox;
    private DeadLetterCounts deadLetters;
    private List<DeadLetterView> recentDeadLetters;
    private List<AdminAction> recentActions;

    @PostConstruct
    void read() {
        outbox = overview.outbox();
        inbox = overview.inboxLastDay();
        deadLetters = overview.deadLetters();
        recentDeadLetters = triage.list(null, null, "all", 10);
        recentActions = overview.recentActions(10);
    }

    public OutboxStatus getOutbox() {
        return outbox;
    }

    /**
     * The oldest pending row's age; never negative, though a row staged by a server whose clock runs ahead
     * of the database's can look younger than zero.
     */
    public ElapsedTime getOldestPending() {
        return new ElapsedTime(Math.max(0, outbox.oldestPendingSeconds()));
    }

    public long getCountCap() {
        return PipelineOverview.COUNT_CAP;
    }

    public List<InboxQueueStats> getInbox() {
        return inbox;
    }

    public DeadLetterCounts getDeadLetters() {
        return deadLetters;
    }

    public List<DeadLetterView> getRecentDeadLetters() {
        return recentDeadLetters;
    }

    public List<AdminAction> getRecentActions() {
        return recentActions;
    }
}
