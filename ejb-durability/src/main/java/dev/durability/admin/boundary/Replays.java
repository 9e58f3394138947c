package dev.durability.admin.boundary;

import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.AdminActionRefused.Reason;
import dev.durability.admin.control.AdminAudit;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayOutcome;
import dev.durability.admin.control.ReplayRequest;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.ReplayCount;
import dev.durability.retention.control.RetentionConfig;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Replays a window of the outbox (docs/admin.md): counts it and, unless it is a dry run, re-stages its
 * published and unroutable rows with one UPDATE, in one container transaction (required) with the audit row.
 * The drains pick the rows up as they do freshly staged ones; consumers that already processed an event
 * count a duplicate, those that had given up on it run it again.
 */
@Stateless
@RolesAllowed(AdminRole.NAME)
public class Replays {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Resource
    SessionContext session;

    @Inject
    AdminAudit audit;

    @Inject
    RetentionConfig retention;

    @Inject
    MessagingSpans spans;

    /**
     * Replays the window the parameters describe, exactly as the operator gave them.
     *
     * @throws AdminActionRefused for a missing, unparsable, inverted or too old window (audited, nothing changed)
     */
    public ReplayOutcome replay(
            String from, String to, String eventType, String scope, String dryRun, Channel channel) {
        String principal = session.getCallerPrincipal().getName();
        String action =
                "true".equals(dryRun == null ? null : dryRun.strip()) ? AdminAudit.REPLAY_PREVIEW : AdminAudit.REPLAY;
        ReplayRequest request;
        try {
            request = ReplayRequest.parse(from, to, eventType, scope, dryRun);
        } catch (AdminActionRefused e) {
            audit.refused(
                    principal,
                    channel,
                    action,
                    ReplayRequest.rawJson(from, to, eventType, scope, dryRun),
                    e.getMessage());
            throw e;
        }
        boolean onlyUnroutable = request.scope() == ReplayRequest.Scope.UNROUTABLE;
        ReplayCount count = em.createNamedQuery(OutboxEvent.REPLAY_PREVIEW, ReplayCount.class)
                .setParameter(1, ReplayRequest.rfc3339(request.from()))
                .setParameter(2, ReplayRequest.rfc3339(request.to()))
                .setParameter(3, request.eventType())
                .setParameter(4, onlyUnroutable)
                .setParameter(5, retentionDays(onlyUnroutable))
                .getSingleResult();
        if (count.beyondRetention()) {
            var refusal = new AdminActionRefused(
                    Reason.BEYOND_RETENTION,
                    "the window starts at " + ReplayRequest.rfc3339(request.from()) + ", before "
                            + count.retainedSince()
                            + ": retention deletes " + (onlyUnroutable ? "unroutable " : "")
                            + "events older than " + retentionDays(onlyUnroutable)
                            + " days (durability.retention.outbox-days, unroutable-days), so a replay from there would re-publish only part of the window; start it at "
                            + count.retainedSince() + " or later");
            audit.refused(principal, channel, action, request.toJson().build(), refusal.getMessage());
            throw refusal;
        }
        long restaged = request.dryRun() ? 0 : restage(request, onlyUnroutable);
        ReplayOutcome outcome = new ReplayOutcome(request, count.matched(), count.restageable(), restaged);
        audit.done(principal, channel, action, outcome.toJson());
        return outcome;
    }

    /**
     * Restages the window under the replay's span, a child of the operator's request: the rows keep their own trace,
     * and each one's next publish span links to the replay (docs/decisions/0077-trace-context-with-mp-telemetry.md).
     */
    private long restage(ReplayRequest request, boolean onlyUnroutable) {
        Span span = spans.replay("replay");
        try {
            long restaged = em.createNamedQuery(OutboxEvent.REPLAY, Long.class)
                    .setParameter(1, ReplayRequest.rfc3339(request.from()))
                    .setParameter(2, ReplayRequest.rfc3339(request.to()))
                    .setParameter(3, request.eventType())
                    .setParameter(4, onlyUnroutable)
                    .setParameter(
                            5,
                            TraceContext.of(span).map(TraceContext::traceparent).orElse(null))
                    .getSingleResult();
            span.setAttribute(MessagingSpans.RESTAGED, restaged);
            return restaged;
        } finally {
            span.end();
        }
    }

    /**
     * How far back the scope's rows are all still there: for the unroutable scope the unroutable window; for all
     * rows the shorter of the two windows that is set (0: both keep rows forever).
     */
    private int retentionDays(boolean onlyUnroutable) {
        var plan = retention.plan();
        int published = (int) plan.outbox().toDays();
        int unroutable = (int) plan.unroutable().toDays();
        if (onlyUnroutable) {
            return unroutable;
        }
        if (published == 0 || unroutable == 0) {
            return Math.max(published, unroutable);
        }
        return Math.min(published, unroutable);
    }
}
