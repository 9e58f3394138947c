package dev.durability.admin.boundary;

import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.AdminActionRefused.Reason;
import dev.durability.admin.control.AdminAudit;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayJobs;
import dev.durability.admin.control.ReplayOutcome;
import dev.durability.admin.control.ReplayRequest;
import dev.durability.admin.entity.ReplayJobStatus;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.ReplayCount;
import dev.durability.retention.control.RetentionConfig;
import dev.durability.retention.control.RetentionPlan;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Replays a window of the outbox (docs/admin.md): counts it and, unless it is a dry run, starts a replay job that
 * {@link ReplayJobTimer} restages in slices (docs/decisions/0084-replay-as-a-job.md). The drains pick the rows up
 * as they do freshly staged ones; consumers that already processed an event count a duplicate, those that had given
 * up on it run it again. Each call is one container transaction (required) with its audit row.
 */
@Stateless
@RolesAllowed(AdminRole.NAME)
public class Replays {

    /** The most jobs the admin page lists. */
    public static final int LISTED_JOBS = 20;

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

    @Inject
    ReplayJobs jobs;

    /**
     * Counts the window the parameters describe, exactly as the operator gave them, and unless it is a dry run
     * starts its job.
     *
     * @throws AdminActionRefused for a missing, unparsable, inverted or too old window, or one overlapping the window
     *     of a running job (audited, nothing changed)
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
                .setParameter(5, retention(onlyUnroutable).toSeconds())
                .getSingleResult();
        if (count.beyondRetention()) {
            var refusal = new AdminActionRefused(
                    Reason.BEYOND_RETENTION,
                    "the window starts at " + ReplayRequest.rfc3339(request.from()) + ", before "
                            + count.retainedSince()
                            + ": retention deletes " + (onlyUnroutable ? "unroutable " : "")
                            + "events older than " + RetentionPlan.readable(retention(onlyUnroutable))
                            + " (durability.retention.outbox-window, unroutable-window), so a replay from there would re-publish only part of the window; start it at "
                            + count.retainedSince() + " or later");
            audit.refused(principal, channel, action, request.toJson().build(), refusal.getMessage());
            throw refusal;
        }
        if (request.dryRun()) {
            ReplayOutcome preview = new ReplayOutcome(request, count.matched(), count.restageable(), null);
            audit.done(principal, channel, action, preview.toJson());
            return preview;
        }
        ReplayJobs.StartedOrRunning start = start(request, principal, channel, count.matched());
        if (start.running() != null) {
            ReplayJobStatus running = start.running();
            var refusal = new AdminActionRefused(
                    Reason.REPLAY_RUNNING,
                    "replay job " + running.id() + " is running on an overlapping window (" + running.from() + " to "
                            + running.to() + ", started by " + running.startedBy()
                            + "): one job per window at a time; wait for it to end or cancel it");
            audit.refused(
                    principal,
                    channel,
                    action,
                    request.toJson().add("running_job", running.id()).build(),
                    refusal.getMessage());
            throw refusal;
        }
        ReplayOutcome started = new ReplayOutcome(request, count.matched(), count.restageable(), start.started());
        audit.outcome(principal, channel, action, "started", started.toJson());
        return started;
    }

    /** A job, as its resource and the admin page show it. */
    public ReplayJobStatus job(String id) {
        return jobs.status(jobId(id))
                .orElseThrow(() -> new AdminActionRefused(Reason.NOT_FOUND, "there is no replay job " + id));
    }

    /** The most recently started jobs, newest first. */
    public List<ReplayJobStatus> recentJobs() {
        return jobs.recent(LISTED_JOBS);
    }

    /**
     * Asks a running job to stop after the slice it is in (waiting for that slice to commit): it keeps what it
     * restaged, and its end is audited when it stops.
     *
     * @throws AdminActionRefused when there is no such job or it ended already (audited)
     */
    public ReplayJobStatus cancel(String id, Channel channel) {
        String principal = session.getCallerPrincipal().getName();
        var details =
                Json.createObjectBuilder().add("job", AdminAudit.storable(id.length() > 64 ? id.substring(0, 64) : id));
        ReplayJobStatus job;
        try {
            job = job(id);
            if (!jobs.requestCancel(job.id(), principal)) {
                throw new AdminActionRefused(
                        Reason.REPLAY_ENDED, "replay job " + job.id() + " ended already: it is " + job.state());
            }
        } catch (AdminActionRefused e) {
            audit.refused(principal, channel, AdminAudit.REPLAY_CANCEL, details.build(), e.getMessage());
            throw e;
        }
        audit.done(principal, channel, AdminAudit.REPLAY_CANCEL, details.build());
        return jobs.status(job.id()).orElseThrow();
    }

    /**
     * Starts the job under the replay's span, a child of the operator's request: the rows keep their own trace, and
     * each one's next publish span links to the replay (docs/decisions/0077-trace-context-with-mp-telemetry.md).
     */
    private ReplayJobs.StartedOrRunning start(ReplayRequest request, String principal, Channel channel, long matched) {
        Span span = spans.replay("replay");
        try {
            return jobs.start(
                    request,
                    principal,
                    channel,
                    matched,
                    TraceContext.of(span).map(TraceContext::traceparent).orElse(null));
        } finally {
            span.end();
        }
    }

    private static String jobId(String id) {
        try {
            return UUID.fromString(id == null ? "" : id.strip()).toString();
        } catch (IllegalArgumentException e) {
            throw new AdminActionRefused(Reason.NOT_FOUND, "there is no replay job with that id: job ids are UUIDs");
        }
    }

    /**
     * How far back the scope's rows are all still there: for the unroutable scope the unroutable window; for all
     * rows the shorter of the two windows that is set (0: both keep rows forever).
     */
    private Duration retention(boolean onlyUnroutable) {
        var plan = retention.plan();
        Duration published = plan.outbox();
        Duration unroutable = plan.unroutable();
        if (onlyUnroutable) {
            return unroutable;
        }
        if (published.isZero() || unroutable.isZero()) {
            return published.compareTo(unroutable) >= 0 ? published : unroutable;
        }
        return published.compareTo(unroutable) <= 0 ? published : unroutable;
    }
}
