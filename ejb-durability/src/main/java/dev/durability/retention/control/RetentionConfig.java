package dev.durability.retention.control;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The retention pruner's knobs, {@code durability.retention.*}; defaults in
 * {@code META-INF/microprofile-config.properties}. Windows and the run interval are ISO-8601 durations
 * ({@code P30D}, {@code PT6H}); a window of zero ({@code PT0S}) keeps a table's rows forever
 * (docs/decisions/0092-retention-windows-as-durations.md).
 */
@ApplicationScoped
public class RetentionConfig implements FeatureConfig {
    static final String OUTBOX_WINDOW = "durability.retention.outbox-window";
    static final String UNROUTABLE_WINDOW = "durability.retention.unroutable-window";
    static final String INBOX_WINDOW = "durability.retention.inbox-window";
    static final String DEAD_LETTER_WINDOW = "durability.retention.dead-letter-window";
    static final String INTERVAL = "durability.retention.interval";
    static final String IDEMPOTENCY = "durability.retention.idempotency";
    static final String BATCH_SIZE = "durability.retention.batch-size";
    static final String MAX_ROWS = "durability.retention.max-rows-per-run";
    static final String JITTER = "durability.retention.jitter-seconds";
    static final String STATEMENT_TIMEOUT = "durability.retention.statement-timeout-seconds";
    static final String CATCH_UP_PAUSE = "durability.retention.catch-up-pause-seconds";

    /** The 0.1.0 keys in whole days, each refused at start naming its replacement. */
    static final Map<String, String> RETIRED = Map.of(
            "durability.retention.outbox-days", OUTBOX_WINDOW,
            "durability.retention.unroutable-days", UNROUTABLE_WINDOW,
            "durability.retention.inbox-days", INBOX_WINDOW,
            "durability.retention.dead-letter-days", DEAD_LETTER_WINDOW);

    private static final Duration LONGEST_WINDOW = Duration.ofDays(36_500);
    private static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(10);
    /** DurabilityRetentionFailing counts two failed runs of a server in three hours: runs must come that often. */
    private static final Duration LONGEST_INTERVAL = Duration.ofHours(1);
    /** How much longer than the outbox the inbox keeps its records, at most (see {@link #inboxMargin}). */
    private static final Duration INBOX_MARGIN = Duration.ofDays(1);

    @Inject
    @ConfigProperty(name = OUTBOX_WINDOW)
    Duration outboxWindow;

    @Inject
    @ConfigProperty(name = UNROUTABLE_WINDOW)
    Duration unroutableWindow;

    @Inject
    @ConfigProperty(name = INBOX_WINDOW)
    Duration inboxWindow;

    @Inject
    @ConfigProperty(name = DEAD_LETTER_WINDOW)
    Duration deadLetterWindow;

    @Inject
    @ConfigProperty(name = INTERVAL)
    Duration interval;

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

    @Inject
    @ConfigProperty(name = "durability.retention.outbox-days")
    Optional<String> retiredOutboxDays = Optional.empty();

    @Inject
    @ConfigProperty(name = "durability.retention.unroutable-days")
    Optional<String> retiredUnroutableDays = Optional.empty();

    @Inject
    @ConfigProperty(name = "durability.retention.inbox-days")
    Optional<String> retiredInboxDays = Optional.empty();

    @Inject
    @ConfigProperty(name = "durability.retention.dead-letter-days")
    Optional<String> retiredDeadLetterDays = Optional.empty();

    @Override
    public void validate() {
        refuseRetired("durability.retention.outbox-days", retiredOutboxDays);
        refuseRetired("durability.retention.unroutable-days", retiredUnroutableDays);
        refuseRetired("durability.retention.inbox-days", retiredInboxDays);
        refuseRetired("durability.retention.dead-letter-days", retiredDeadLetterDays);
        checkWindow(OUTBOX_WINDOW, outboxWindow);
        checkWindow(UNROUTABLE_WINDOW, unroutableWindow);
        checkWindow(INBOX_WINDOW, inboxWindow);
        checkWindow(DEAD_LETTER_WINDOW, deadLetterWindow);
        InvalidConfigurationException.check(
                interval.compareTo(SHORTEST_INTERVAL) >= 0 && interval.compareTo(LONGEST_INTERVAL) <= 0,
                INTERVAL,
                interval,
                "must be an ISO-8601 duration between PT10S and PT1H (the retention alerts count runs in hours)");
        InvalidConfigurationException.checkRange(BATCH_SIZE, batchSize, 1, 100_000);
        InvalidConfigurationException.checkRange(MAX_ROWS, maxRowsPerRun, batchSize, 100_000_000);
        InvalidConfigurationException.checkRange(JITTER, jitterSeconds, 0, 3_000);
        // Each run starts at a random moment within the jitter after its interval began: a jitter as long as the
        // interval would let runs of one server follow each other without a pause, or skip an interval.
        InvalidConfigurationException.check(
                jitterSeconds < interval.toSeconds(),
                JITTER,
                jitterSeconds,
                "must be shorter than " + INTERVAL + " (" + interval.toSeconds() + " s)");
        InvalidConfigurationException.checkRange(STATEMENT_TIMEOUT, statementTimeoutSeconds, 1, 3_600);
        InvalidConfigurationException.checkRange(CATCH_UP_PAUSE, catchUpPauseSeconds, 0, 3_600);
        // A replay re-publishes outbox rows up to the outbox window old; a consumer must still hold their
        // dedup record, or the replay runs their effects again (docs/decisions/0033-retention.md, 0092).
        if (!inboxWindow.isZero()) {
            Duration least = outboxWindow.plus(inboxMargin(outboxWindow));
            InvalidConfigurationException.check(
                    !outboxWindow.isZero() && inboxWindow.compareTo(least) >= 0,
                    INBOX_WINDOW,
                    inboxWindow,
                    outboxWindow.isZero()
                            ? "must be PT0S (keep forever) while " + OUTBOX_WINDOW + " is PT0S: a replay may "
                                    + "re-publish events of any age, and their consumers' dedup records must outlive them"
                            : "must be at least " + OUTBOX_WINDOW + " + "
                                    + RetentionPlan.readable(inboxMargin(outboxWindow))
                                    + " (" + RetentionPlan.readable(least) + "): a replay may re-publish events "
                                    + RetentionPlan.readable(outboxWindow) + " old, and their consumers' dedup records "
                                    + "must outlive them");
        }
    }

    /**
     * How much longer than the outbox window the inbox must keep dedup records: a day, or the outbox window itself
     * when that is shorter. The margin covers a replayed event's way to its consumers (a drain behind, a broker
     * down); a service that keeps its outbox for minutes runs at a volume where a day of dedup records would be
     * most of its database.
     */
    static Duration inboxMargin(Duration outbox) {
        return outbox.compareTo(INBOX_MARGIN) < 0 ? outbox : INBOX_MARGIN;
    }

    private static void refuseRetired(String key, Optional<String> value) {
        value.ifPresent(days -> {
            throw new InvalidConfigurationException(
                    key,
                    days,
                    "replaced by " + RETIRED.get(key) + ", an ISO-8601 duration (P" + days.strip()
                            + "D for the same window; PT0S keeps rows forever)");
        });
    }

    private static void checkWindow(String key, Duration window) {
        InvalidConfigurationException.check(
                !window.isNegative() && window.compareTo(LONGEST_WINDOW) <= 0,
                key,
                window,
                "must be an ISO-8601 duration between PT0S (keep forever) and P36500D");
    }

    /** The configured windows and limits, for each run. */
    public RetentionPlan plan() {
        return new RetentionPlan(
                outboxWindow,
                unroutableWindow,
                inboxWindow,
                deadLetterWindow,
                idempotency,
                batchSize,
                maxRowsPerRun,
                statementTimeoutSeconds);
    }

    /** How often each server runs the pruner. */
    public Duration interval() {
        return interval;
    }

    /** The most a server waits after its interval began before its run, so replicas do not all start at once. */
    public Duration jitter() {
        return Duration.ofSeconds(jitterSeconds);
    }

    /** How long a run that stopped at its cap waits before the next one takes up the backlog. */
    public Duration catchUpPause() {
        return Duration.ofSeconds(catchUpPauseSeconds);
    }

    @Override
    public String toString() {
        return "retention every " + interval + ": outbox " + outboxWindow + " (unroutable " + unroutableWindow
                + "), inbox " + inboxWindow + ", dead letters " + deadLetterWindow
                + ", idempotency " + (idempotency ? "on" : "off") + " (PT0S = kept forever), batches of "
                + batchSize + ", at most " + maxRowsPerRun + " rows per table per run, again after "
                + catchUpPauseSeconds
                + " s while a table is behind";
    }
}
