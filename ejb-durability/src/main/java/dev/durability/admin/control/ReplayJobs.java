package dev.durability.admin.control;

import dev.durability.admin.entity.ReplayJob;
import dev.durability.admin.entity.ReplayJobStatus;
import dev.durability.admin.entity.TakenReplayJob;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.ReplaySlice;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The replay jobs' statements (docs/decisions/0084-replay-as-a-job.md), each in the transaction of its caller: the
 * request that starts or cancels a job, or the slice that restages part of it and records its progress.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.MANDATORY)
public class ReplayJobs {
    /** A job whose slices fail this many times in a row (each retried on the next tick) fails. */
    public static final int FAILED_SLICES_LIMIT = 5;

    private static final String NO_POSITION_AT = "-infinity";
    private static final String NO_POSITION_ID = "00000000-0000-0000-0000-000000000000";

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    ReplayConfig config;

    /**
     * Starts a job for the request unless one of an overlapping window is running, in which case that one is
     * returned and nothing is started. Starts are serialized across servers for the rest of the transaction.
     */
    public StartedOrRunning start(
            ReplayRequest request, String principal, Channel channel, long matched, String replayTraceparent) {
        em.createNamedQuery(ReplayJob.LOCK_STARTS).getSingleResult();
        List<?> running = em.createNamedQuery(ReplayJob.RUNNING_OVERLAPPING)
                .setParameter(1, ReplayRequest.rfc3339(request.from()))
                .setParameter(2, ReplayRequest.rfc3339(request.to()))
                .getResultList();
        if (!running.isEmpty()) {
            return new StartedOrRunning(null, status((String) running.get(0)).orElseThrow());
        }
        String id = UUID.randomUUID().toString();
        em.createNamedQuery(ReplayJob.START)
                .setParameter(1, id)
                .setParameter(2, ReplayRequest.rfc3339(request.from()))
                .setParameter(3, ReplayRequest.rfc3339(request.to()))
                .setParameter(4, request.eventType())
                .setParameter(5, request.scope().parameter())
                .setParameter(6, AdminAudit.bounded(principal))
                .setParameter(7, channel.column())
                .setParameter(8, matched)
                .setParameter(9, replayTraceparent)
                .executeUpdate();
        return new StartedOrRunning(status(id).orElseThrow(), null);
    }

    /** What {@link #start} did: exactly one of the two is set. */
    public record StartedOrRunning(ReplayJobStatus started, ReplayJobStatus running) {}

    /** Takes the oldest running job this worker may work, locked for the caller's transaction (the slice's). */
    public Optional<TakenReplayJob> take(String worker) {
        List<?> taken = em.createNamedQuery(ReplayJob.TAKE)
                .setParameter(1, worker)
                .setParameter(2, config.lease().toSeconds())
                .getResultList();
        return taken.stream().map(TakenReplayJob.class::cast).findFirst();
    }

    /**
     * Restages the job's next slice and records its progress with it: the slice's rows and the job's position
     * commit together or not at all. Answers whether the window is done.
     */
    public boolean restageNextSlice(TakenReplayJob job) {
        // Bounds every statement of the slice, lock waits included; plans made for these bounds, not a generic
        // plan for any window (a generic plan may sort the whole window instead of reading the index in order).
        // No bitmap scan: without statistics that cover the window (rows loaded since the last ANALYZE, or
        // autovacuum off) the planner would bitmap-scan and sort the rest of the window for every slice, and a
        // job would read its window once per slice (measured: a million rows took 90 s instead of 28 s;
        // docs/decisions/0010-claim-plan-settings.md is the claim's same trap).
        em.createNativeQuery("SELECT set_config('statement_timeout', CAST(?1 AS text), true),"
                        + " set_config('plan_cache_mode', 'force_custom_plan', true),"
                        + " set_config('enable_bitmapscan', 'off', true)")
                .setParameter(1, Long.toString(config.statementTimeout().toMillis()))
                .getSingleResult();
        boolean positioned = job.afterCreatedAt() != null;
        ReplaySlice slice = em.createNamedQuery(OutboxEvent.REPLAY_SLICE, ReplaySlice.class)
                .setParameter(1, positioned ? job.afterCreatedAt() : job.windowFrom())
                .setParameter(2, job.windowTo())
                .setParameter(3, job.eventType())
                .setParameter(4, job.onlyUnroutable())
                .setParameter(5, job.replayTraceparent())
                .setParameter(6, positioned ? job.afterCreatedAt() : NO_POSITION_AT)
                .setParameter(7, positioned ? job.afterId() : NO_POSITION_ID)
                .setParameter(8, config.sliceSize())
                .getSingleResult();
        boolean done = slice.seen() < config.sliceSize();
        em.createNamedQuery(ReplayJob.PROGRESS)
                .setParameter(1, job.id())
                .setParameter(2, slice.restaged())
                .setParameter(3, slice.pending())
                .setParameter(4, slice.lastCreatedAt())
                .setParameter(5, slice.lastId())
                .setParameter(6, done)
                .executeUpdate();
        return done;
    }

    /** Ends a running job as cancelled or failed. */
    public void end(String id, String state) {
        em.createNamedQuery(ReplayJob.END)
                .setParameter(1, id)
                .setParameter(2, state)
                .executeUpdate();
    }

    /** Counts a failed slice; answers the job's state after it (failed after {@link #FAILED_SLICES_LIMIT}). */
    public Optional<String> sliceFailed(String id, String error) {
        List<?> state = em.createNamedQuery(ReplayJob.SLICE_FAILED)
                .setParameter(1, id)
                .setParameter(2, error)
                .setParameter(3, FAILED_SLICES_LIMIT)
                .getResultList();
        return state.stream().map(String.class::cast).findFirst();
    }

    /** Asks a running job to stop before its next slice; false when it is not running. */
    public boolean requestCancel(String id, String principal) {
        return em.createNamedQuery(ReplayJob.REQUEST_CANCEL)
                        .setParameter(1, id)
                        .setParameter(2, AdminAudit.bounded(principal))
                        .executeUpdate()
                > 0;
    }

    public Optional<ReplayJobStatus> status(String id) {
        return em
                .createNamedQuery(ReplayJob.STATUS_OF, ReplayJobStatus.class)
                .setParameter(1, id)
                .getResultList()
                .stream()
                .findFirst();
    }

    /** The most recently started jobs, newest first. */
    public List<ReplayJobStatus> recent(int limit) {
        return em.createNamedQuery(ReplayJob.RECENT, ReplayJobStatus.class)
                .setParameter(1, limit)
                .getResultList();
    }
}
