package dev.durability.outbox.control;

import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.Arrays;

/** The drain's knobs, {@code durability.outbox.*}; defaults in {@code META-INF/microprofile-config.properties}. */
@ApplicationScoped
public class OutboxConfig {
    static final String POLL_INTERVAL = "durability.outbox.poll-interval-ms";
    static final String BATCH_SIZE = "durability.outbox.batch-size";
    static final String LEASE = "durability.outbox.lease-seconds";
    static final String TICK_BUDGET = "durability.outbox.tick-budget-ms";
    static final String CONFIRM_TIMEOUT = "durability.outbox.confirm-timeout-ms";
    static final String BACKOFF_INITIAL = "durability.outbox.backoff-initial-ms";
    static final String BACKOFF_MAX = "durability.outbox.backoff-max-ms";
    static final String PENDING_GRACE = "durability.outbox.pending-grace-seconds";
    static final String MAX_ENVELOPE_BYTES = "durability.outbox.max-envelope-bytes";

    /** Pauses between retries of a failed stamp; part of how long a claim can live. */
    public static final long[] STAMP_RETRY_PAUSES_MILLIS = {200, 1000, 3000};

    @Inject
    @ConfigProperty(name = POLL_INTERVAL)
    long pollIntervalMillis;

    @Inject
    @ConfigProperty(name = BATCH_SIZE)
    int batchSize;

    @Inject
    @ConfigProperty(name = LEASE)
    int leaseSeconds;

    @Inject
    @ConfigProperty(name = TICK_BUDGET)
    long tickBudgetMillis;

    @Inject
    @ConfigProperty(name = CONFIRM_TIMEOUT)
    long confirmTimeoutMillis;

    @Inject
    @ConfigProperty(name = BACKOFF_INITIAL)
    long backoffInitialMillis;

    @Inject
    @ConfigProperty(name = BACKOFF_MAX)
    long backoffMaxMillis;

    @Inject
    @ConfigProperty(name = PENDING_GRACE)
    int pendingGraceSeconds;

    @Inject
    @ConfigProperty(name = MAX_ENVELOPE_BYTES)
    int maxEnvelopeBytes;

    public void validate() {
        InvalidConfigurationException.checkRange(POLL_INTERVAL, pollIntervalMillis, 100, 3_600_000);
        InvalidConfigurationException.checkRange(BATCH_SIZE, batchSize, 1, 10_000);
        InvalidConfigurationException.checkRange(CONFIRM_TIMEOUT, confirmTimeoutMillis, 100, 600_000);
        InvalidConfigurationException.checkRange(TICK_BUDGET, tickBudgetMillis, 100, 3_600_000);
        InvalidConfigurationException.checkRange(LEASE, leaseSeconds, 1, 86_400);
        InvalidConfigurationException.checkRange(BACKOFF_INITIAL, backoffInitialMillis, 1, 3_600_000);
        InvalidConfigurationException.checkRange(BACKOFF_MAX, backoffMaxMillis, backoffInitialMillis, 86_400_000);
        InvalidConfigurationException.checkRange(PENDING_GRACE, pendingGraceSeconds, 1, 31_536_000);
        // RabbitMQ refuses messages over its max_message_size (128 MiB by default) by closing the channel;
        // the published text (jsonb's) is somewhat longer than the staged one, hence half of that.
        InvalidConfigurationException.checkRange(MAX_ENVELOPE_BYTES, maxEnvelopeBytes, 1024, 64 * 1024 * 1024);
    }

    /**
     * A lease shorter than the longest publish round would let a second worker reclaim rows that are
     * still being published, and publish them twice.
     */
    public void checkLeaseOutlasts(long worstPublishRoundMillis) {
        long worstClaimMillis = worstPublishRoundMillis + Arrays.stream(STAMP_RETRY_PAUSES_MILLIS).sum();
        InvalidConfigurationException.check(leaseSeconds * 1000L > worstClaimMillis, LEASE, leaseSeconds,
                "must be longer than the longest a claim can live, " + worstClaimMillis + " ms ("
                        + CONFIRM_TIMEOUT + " plus twice durability.broker.connect-timeout-ms plus the stamp's "
                        + "retries)");
    }

    public long confirmTimeoutMillis() {
        return confirmTimeoutMillis;
    }

    public Duration pollInterval() {
        return Duration.ofMillis(pollIntervalMillis);
    }

    public int batchSize() {
        return batchSize;
    }

    public int leaseSeconds() {
        return leaseSeconds;
    }

    public Duration tickBudget() {
        return Duration.ofMillis(tickBudgetMillis);
    }

    public Duration confirmTimeout() {
        return Duration.ofMillis(confirmTimeoutMillis);
    }

    public double backoffInitialSeconds() {
        return backoffInitialMillis / 1000.0;
    }

    public double backoffMaxSeconds() {
        return backoffMaxMillis / 1000.0;
    }

    public int maxEnvelopeBytes() {
        return maxEnvelopeBytes;
    }

    public int pendingGraceSeconds() {
        return pendingGraceSeconds;
    }

    @Override
    public String toString() {
        return "outbox poll " + pollIntervalMillis + " ms, batch " + batchSize + ", lease " + leaseSeconds
                + " s, tick budget " + tickBudgetMillis + " ms, confirm timeout " + confirmTimeoutMillis
                + " ms, backoff " + backoffInitialMillis + ".." + backoffMaxMillis + " ms";
    }
}
