package dev.durability.admin.boundary;

import dev.durability.admin.entity.AdminAction;
import dev.durability.admin.entity.AdminAuditEntry;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.deadletter.entity.DeadLetterCounts;
import dev.durability.inbox.entity.InboxEntry;
import dev.durability.inbox.entity.InboxQueueStats;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.OutboxStatus;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/**
 * The pipeline's state as the admin status page shows it. Reads only, each statement on its own (no
 * transaction: NOT_SUPPORTED), every one bounded by an index range or a row cap.
 */
@Stateless
@RolesAllowed(AdminRole.NAME)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class PipelineOverview {
    /** Counts stop here, as the status gauges' do: a huge backlog is "at least this many". */
    public static final long COUNT_CAP = 1_000_000;

    static final int EVENT_TYPE_SAMPLE = 10_000;

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    OutboxConfig outboxConfig;

    public OutboxStatus outbox() {
        return em.createNamedQuery(OutboxEvent.PENDING_STATUS, OutboxStatus.class)
                .setParameter(1, outboxConfig.pendingGraceSeconds())
                .setParameter(2, COUNT_CAP)
                .getSingleResult();
    }

    public List<InboxQueueStats> inboxLastDay() {
        return em.createNamedQuery(InboxEntry.LAST_DAY, InboxQueueStats.class).getResultList();
    }

    public DeadLetterCounts deadLetters() {
        return em.createNamedQuery(DeadLetter.COUNT_ALL, DeadLetterCounts.class)
                .setParameter(1, COUNT_CAP)
                .getSingleResult();
    }

    public List<AdminAction> recentActions(int limit) {
        return em.createNamedQuery(AdminAuditEntry.RECENT, AdminAction.class)
                .setParameter(1, Math.max(1, Math.min(limit, 500)))
                .getResultList();
    }

    /** The event types among the most recently staged events, for the replay page to suggest. */
    public List<String> recentEventTypes() {
        return em.createNamedQuery(OutboxEvent.RECENT_EVENT_TYPES, String.class)
                .setParameter(1, EVENT_TYPE_SAMPLE)
                .getResultList();
    }
}
