package dev.durability.admin.boundary;

import dev.durability.admin.control.AdminAudit;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayJobs;
import dev.durability.admin.entity.ReplayJobStatus;
import dev.durability.admin.entity.TakenReplayJob;
import dev.durability.config.control.ServiceConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Works the running replay jobs on every server (docs/decisions/0084-replay-as-a-job.md), slice after slice, each
 * slice its own transaction: take the oldest job this server may work (its row locked, its lease renewed), restage
 * the next slice of its window and record the position after it, commit. A crash loses at most the slice in
 * flight; the job's row says where to go on, and this server after its restart, or another once the lease ended,
 * goes on from there. Jobs running when the server starts are picked up by the first tick.
 *
 * <p>Timer: a non-persistent interval timer every second; bean-managed transactions (one per slice) and a guard so
 * ticks never overlap. A tick works for at most {@link #TICK_BUDGET} and, when a job is left, schedules its
 * continuation at once: a long job never holds the timer thread, and a stopping server stops between slices.
 */
@Startup
@Singleton
@DependsOn({"ConfigurationCheck", "SchemaMigration"})
@TransactionManagement(TransactionManagementType.BEAN)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ReplayJobTimer {
    private static final Logger LOG = Logger.getLogger(ReplayJobTimer.class.getName());
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
    static final Duration TICK_BUDGET = Duration.ofSeconds(5);

    @Resource
    TimerService timers;

    @Resource
    UserTransaction transaction;

    @Inject
    ReplayJobs jobs;

    @Inject
    AdminAudit audit;

    @Inject
    ServiceConfig service;

    private final AtomicBoolean working = new AtomicBoolean();
    private volatile boolean stopping;

    /** The last problem logged at WARNING; repeats of it go to FINE, so an outage is one line, not one a second. */
    private volatile String lastProblem;

    @PostConstruct
    void schedule() {
        long interval = POLL_INTERVAL.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("durability-replay-jobs", false));
    }

    @PreDestroy
    void stop() {
        stopping = true;
    }

    @Timeout
    void tick() {
        if (!working.compareAndSet(false, true)) {
            return;
        }
        try {
            long deadline = System.nanoTime() + TICK_BUDGET.toNanos();
            boolean more = true;
            while (more && !stopping && System.nanoTime() < deadline) {
                more = workOneSlice();
            }
            if (more && !stopping) {
                timers.createSingleActionTimer(1, new TimerConfig("durability-replay-jobs-continued", false));
            }
        } finally {
            working.set(false);
        }
    }

    /** One transaction: a slice of the oldest job this server may work. False when there was none to work. */
    private boolean workOneSlice() {
        String jobId = null;
        try {
            transaction.begin();
            Optional<TakenReplayJob> taken = jobs.take(service.instanceName());
            if (taken.isEmpty()) {
                transaction.commit();
                lastProblem = null;
                return false;
            }
            TakenReplayJob job = taken.get();
            jobId = job.id();
            if (job.cancelling()) {
                jobs.end(job.id(), ReplayJobStatus.CANCELLED);
                auditEnd(job.id(), ReplayJobStatus.CANCELLED);
            } else if (jobs.restageNextSlice(job)) {
                auditEnd(job.id(), ReplayJobStatus.DONE);
            }
            transaction.commit();
            lastProblem = null;
            return true;
        } catch (Exception e) {
            rollback();
            if (jobId == null) {
                logOnce("replay jobs: could not take a job, trying again on the next tick", e);
                return false;
            }
            recordFailure(jobId, e);
            return false;
        }
    }

    /** In a transaction of its own, after the slice rolled back: counted, and the job failed after too many. */
    private void recordFailure(String jobId, Exception failure) {
        String error = failure.getClass().getName() + ": " + rootMessage(failure);
        LOG.log(
                Level.WARNING,
                "replay job " + jobId + ": a slice failed and rolled back; retried on the next tick",
                failure);
        try {
            transaction.begin();
            Optional<String> state = jobs.sliceFailed(jobId, error);
            if (state.filter(ReplayJobStatus.FAILED::equals).isPresent()) {
                auditEnd(jobId, ReplayJobStatus.FAILED);
            }
            transaction.commit();
        } catch (Exception e) {
            rollback();
            LOG.log(Level.WARNING, "replay job " + jobId + ": could not record the failed slice", e);
        }
    }

    /** The audit row of the job's end, in the transaction that ended it, with the principal who started it. */
    private void auditEnd(String jobId, String outcome) {
        ReplayJobStatus job = jobs.status(jobId).orElseThrow();
        LOG.info(() -> "replay job " + jobId + " " + outcome + ": " + job.restaged() + " rows restaged, "
                + job.pending() + " pending rows left alone, in " + job.slices() + " slices");
        audit.outcome(
                job.startedBy(),
                Channel.of(job.channel()),
                AdminAudit.REPLAY,
                outcome,
                job.toAuditJson().build());
    }

    private void logOnce(String message, Exception failure) {
        String problem = message + ": " + rootMessage(failure);
        if (problem.equals(lastProblem)) {
            LOG.log(Level.FINE, message, failure);
        } else {
            lastProblem = problem;
            LOG.log(Level.WARNING, message, failure);
        }
    }

    private void rollback() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (SystemException | IllegalStateException | SecurityException e) {
            LOG.log(Level.FINE, "replay jobs: rollback failed", e);
        }
    }

    private static String rootMessage(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage());
    }
}
