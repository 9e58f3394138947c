package dev.durability.retention.control;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The retention pruner's knobs, {@code durability.retention.*}; defaults in
 * {@code META-INF/microprofile-config.properties}. A window of 0 days keeps a table's rows forever.
 */
@ApplicationScoped
public class RetentionConfig implements FeatureConfig {
    static final String OUTBOX_DAYS = "durability.retention.outbox-days";
    static final String UNROUTABLE_DAYS = "durability.retention.unroutable-days";
    static final String INBOX_DAYS = "durability.retention.inbox-days";
    static final String DEAD_LETTER_DAYS = "durability.retention.dead-letter-days";
    static final String IDEMPOTENCY = "durability.retention.idempotency";
    static final String BATCH_SIZE = "durability.retention.batch-size";
    static final String MAX_ROWS = "durability.retention.max-rows-per-run";
    static final String JITTER = "durability.retention.jitter-seconds";
    static final String STATEMENT_TIMEOUT = "durability.retention.statement-timeout-seconds";
    static final String CATCH_UP_PAUSE = "durability.retention.catch-up-pause-seconds";

    @Inject
    @ConfigProperty(name = OUTBOX_DAYS)
    int outboxDays;

    @Inject
    @ConfigProperty(name = UNROUTABLE_DAYS)
    int unroutableDays;

    @Inject
    @ConfigProperty(name = INBOX_DAYS)
    int inboxDays;

    @Inject
    @ConfigProperty(name = DEAD_LETTER_DAYS)
    int deadLetterDays;

    @Inject
    @ConfigProperty(name = IDEMPOTENCY)
    boolean idempotency;

    @Inject
    @ConfigProperty(name = BATCH_SIZE)
    int batchSize;

    @Inject
    @ConfigProperty(name = MAX_ROWS)
    int maxRowsPerRun;

    @Inject
    @ConfigProperty(name = JITTER)
    int jitterSeconds;

    @Inject
    @ConfigProperty(name = STATEMENT_TIMEOUT)
    int statementTimeoutSeconds;

    @Inject
    @ConfigProperty(name = CATCH_UP_PAUSE)
    int catchUpPauseSeconds;

    @Override
    public void validate() {
        InvalidConfigurationException.checkRange(OUTBOX_DAYS, outboxDays, 0, 36_500);
        InvalidConfigurationException.checkRange(UNROUTABLE_DAYS, unroutableDays, 0, 36_500);
        InvalidConfigurationException.checkRange(INBOX_DAYS, inboxDays, 0, 36_500);
        InvalidConfigurationException.checkRange(DEAD_LETTER_DAYS, deadLetterDays, 0, 36_500);
        InvalidConfigurationException.checkRange(BATCH_SIZE, batchSize, 1, 100_000);
        InvalidConfigurationException.checkRange(MAX_ROWS, maxRowsPerRun, batchSize, 100_000_000);
        InvalidConfigurationException.checkRange(JITTER, jitterSeconds, 0, 3_000);
        InvalidConfigurationException.checkRange(STATEMENT_TIMEOUT, statementTimeoutSeconds, 1, 3_600);
        InvalidConfigurationException.checkRange(CATCH_UP_PAUSE, catchUpPauseSeconds, 0, 3_600);
        // A replay re-publishes outbox rows up to the outbox window old; a consumer must still hold their
        // dedup record, or the replay runs their effects again (docs/decisions/0033-retention.md).
        if (inboxDays > 0) {
            InvalidConfigurationException.check(
                    outboxDays > 0 && inboxDays >= outboxDays + 1,
                    INBOX_DAYS,
                    inboxDays,
                    outboxDays == 0
                            ? "must be 0 (keep forever) while " + OUTBOX_DAYS + " is 0: a replay may re-publish events"
                                    + " of any age, and their consumers' dedup records must outlive them"
                            : "must be at least " + OUTBOX_DAYS + " + 1 (" + (outboxDays + 1) + "): a replay may "
                                    + "re-publish events " + outboxDays + " days old, and their consumers' dedup "
                                    + "records must outlive them");
        }
    }

    /** The configured windows and limits, for the hourly run. */
    public RetentionPlan plan() {
        return new RetentionPlan(
                Duration.ofDays(outboxDays),
                Duration.ofDays(unroutableDays),
                Duration.ofDays(inboxDays),
                Duration.ofDays(deadLetterDays),
                idempotency,
                batchSize,
                maxRowsPerRun,
                statementTimeoutSeconds);
    }

    /** The most a server waits after the hour before its run, so replicas do not all start at once. */
    public Duration jitter() {
        return Duration.ofSeconds(jitterSeconds);
    }

    /** How long a run that stopped at its cap waits before the next one takes up the backlog. */
    public Duration catchUpPause() {
        return Duration.ofSeconds(catchUpPauseSeconds);
    }

    @Override
    public String toString() {
        return "retention outbox " + outboxDays + " d (unroutable " + unroutableDays + " d), inbox " + inboxDays
                + " d, dead letters " + deadLetterDays
                + " d, idempotency " + (idempotency ? "on" : "off") + " (0 d = kept forever), batches of "
                + batchSize + ", at most " + maxRowsPerRun + " rows per table per run, again after "
                + catchUpPauseSeconds
                + " s while a table is behind";
    }
}
