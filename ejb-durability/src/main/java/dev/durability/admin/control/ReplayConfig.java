package dev.durability.admin.control;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The replay jobs' knobs, {@code durability.replay.*} (docs/admin.md, docs/decisions/0084-replay-as-a-job.md);
 * defaults in {@code META-INF/microprofile-config.properties}.
 */
@ApplicationScoped
public class ReplayConfig implements FeatureConfig {
    static final String SLICE_SIZE = "durability.replay.slice-size";
    static final String LEASE = "durability.replay.lease-seconds";
    static final String STATEMENT_TIMEOUT = "durability.replay.statement-timeout-ms";

    @Inject
    @ConfigProperty(name = SLICE_SIZE)
    int sliceSize;

    @Inject
    @ConfigProperty(name = LEASE)
    int leaseSeconds;

    @Inject
    @ConfigProperty(name = STATEMENT_TIMEOUT)
    int statementTimeoutMillis;

    @Override
    public void validate() {
        // A slice is one transaction: its rows bound how long it holds their locks and how much WAL it writes.
        InvalidConfigurationException.checkRange(SLICE_SIZE, sliceSize, 1, 100_000);
        InvalidConfigurationException.checkRange(LEASE, leaseSeconds, 5, 3_600);
        InvalidConfigurationException.checkRange(STATEMENT_TIMEOUT, statementTimeoutMillis, 100, 600_000);
        // A slice that may run longer than the lease would let another server take the job while it runs: the job
        // row's lock keeps that safe, but the lease would no longer say who works it.
        InvalidConfigurationException.check(
                statementTimeoutMillis < leaseSeconds * 1000L,
                STATEMENT_TIMEOUT,
                statementTimeoutMillis,
                "must be shorter than " + LEASE + " (" + leaseSeconds + " s): a slice must end within its lease");
    }

    /** The most rows of the window one slice (one transaction) looks at. */
    public int sliceSize() {
        return sliceSize;
    }

    /** How long a server holds a job after its last slice; another server takes it over after that. */
    public Duration lease() {
        return Duration.ofSeconds(leaseSeconds);
    }

    /** The bound of every statement of a slice, lock waits included. */
    public Duration statementTimeout() {
        return Duration.ofMillis(statementTimeoutMillis);
    }

    @Override
    public String toString() {
        return "replay slices of " + sliceSize + " rows, lease " + leaseSeconds + " s, statements within "
                + statementTimeoutMillis + " ms";
    }
}
