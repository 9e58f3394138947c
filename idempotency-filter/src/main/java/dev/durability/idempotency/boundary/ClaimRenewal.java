package dev.durability.idempotency.boundary;

import dev.durability.idempotency.control.CacheKey;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps a running request's claim from lapsing: every third of the claim timeout it is extended by the claim
 * timeout from then, fenced on its generation, until the request ends or the filter's transaction timeout has
 * passed (after that nothing of the request's can commit). A server that dies stops renewing, and its claims
 * lapse one claim timeout later (docs/decisions/0052-claim-renewed-while-running.md).
 */
final class ClaimRenewal implements Runnable {
    private static final Logger LOG = Logger.getLogger(ClaimRenewal.class.getName());

    private final IdempotencyRecords records;
    private final CacheKey key;
    private final long generation;
    private final Duration claimTimeout;
    private final long deadline;
    private volatile boolean stopped;
    private ScheduledFuture<?> task;

    private ClaimRenewal(
            IdempotencyRecords records, CacheKey key, long generation, Duration claimTimeout, Duration bound) {
        this.records = records;
        this.key = key;
        this.generation = generation;
        this.claimTimeout = claimTimeout;
        this.deadline = System.nanoTime() + bound.toNanos();
    }

    static ClaimRenewal start(
            ManagedScheduledExecutorService scheduler,
            IdempotencyRecords records,
            CacheKey key,
            long generation,
            Duration claimTimeout,
            Duration bound) {
        ClaimRenewal renewal = new ClaimRenewal(records, key, generation, claimTimeout, bound);
        long period = Math.max(1, claimTimeout.toMillis() / 3);
        synchronized (renewal) {
            renewal.task = scheduler.scheduleAtFixedRate(renewal, period, period, TimeUnit.MILLISECONDS);
        }
        return renewal;
    }

    @Override
    public void run() {
        if (stopped) {
            return;
        }
        if (System.nanoTime() - deadline >= 0) {
            LOG.warning(() -> "a keyed request ran past the idempotency transaction timeout (record " + key
                    + "): its claim is no longer renewed and lapses in " + claimTimeout.toMillis() + " ms");
            stop();
            return;
        }
        try {
            if (!records.renew(key, generation, claimTimeout)) {
                stop(); // finalized, or a newer claim holds the key
            }
        } catch (RuntimeException e) {
            // The next round tries again; the claim still has two rounds to run.
            LOG.log(Level.WARNING, "could not renew the claim of keyed request " + key, e);
        }
    }

    void stop() {
        stopped = true;
        synchronized (this) {
            if (task != null) {
                task.cancel(false);
            }
        }
    }
}
