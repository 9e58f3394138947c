package dev.durability.outbox.control;

import dev.durability.broker.control.BrokerConfig;
import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The drain's knobs, {@code durability.outbox.*}, and the format it publishes envelopes in,
 * {@code durability.envelope.format} (the consumer reads either format whatever this says); defaults in
 * {@code META-INF/microprofile-config.properties}.
 */
@ApplicationScoped
public class OutboxConfig implements FeatureConfig {
    static final String POLL_INTERVAL = "durability.outbox.poll-interval-ms";
    static final String BATCH_SIZE = "durability.outbox.batch-size";
    static final String LEASE = "durability.outbox.lease-seconds";
    static final String TICK_BUDGET = "durability.outbox.tick-budget-ms";
    static final String CONFIRM_TIMEOUT = "durability.outbox.confirm-timeout-ms";
    static final String BACKOFF_INITIAL = "durability.outbox.backoff-initial-ms";
    static final String BACKOFF_MAX = "durability.outbox.backoff-max-ms";
    static final String PENDING_GRACE = "durability.outbox.pending-grace-seconds";
    static final String MAX_ENVELOPE_BYTES = "durability.outbox.max-envelope-bytes";
    static final String CLAIM_MAX_BYTES = "durability.outbox.claim-max-bytes";
    static final String STATEMENT_TIMEOUT = "durability.outbox.statement-timeout-ms";
    static final String STAMP_TIMEOUT = "durability.outbox.stamp-timeout-ms";
    static final String LISTEN_NOTIFY = "durability.outbox.listen-notify";
    static final String WAKE_ON_STAGING = "durability.outbox.wake-on-staging";
    static final String ENVELOPE_FORMAT = "durability.envelope.format";

    /** How a published message carries its envelope (docs/decisions/0078-cloudevents-envelope-format.md). */
    public enum EnvelopeFormat {
        /** The envelope's own JSON form (docs/envelope.md), {@code application/json}: the default. */
        DURABILITY,
        /** A CloudEvents 1.0 event in the structured JSON format, {@code application/cloudevents+json}. */
        CLOUDEVENTS;

        /** The configured value, as written in the configuration. */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * RabbitMQ 4 refuses messages over 16 MiB by default ({@code max_message_size}); the published text
     * (PostgreSQL's jsonb output, which adds a space after every ':' and ',') is at most 1.5 times the
     * staged one, so a staged envelope of up to 8 MiB is always accepted.
     */
    static final int LARGEST_ENVELOPE_BYTES = 8 * 1024 * 1024;

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

    @Inject
    @ConfigProperty(name = CLAIM_MAX_BYTES)
    long claimMaxBytes;

    @Inject
    @ConfigProperty(name = STATEMENT_TIMEOUT)
    long statementTimeoutMillis;

    @Inject
    @ConfigProperty(name = STAMP_TIMEOUT)
    long stampTimeoutMillis;

    @Inject
    @ConfigProperty(name = LISTEN_NOTIFY)
    boolean listenNotify;

    @Inject
    @ConfigProperty(name = WAKE_ON_STAGING)
    boolean wakeOnStaging;

    @Inject
    @ConfigProperty(name = ENVELOPE_FORMAT)
    String envelopeFormat;

    /** The lease must outlast the longest claim, which includes the broker's connect timeout. */
    @Inject
    BrokerConfig broker;

    @Override
    public void validate() {
        checkValues();
        // Dropping a failed connection closes its socket at once, then waits at most the connect timeout;
        // the broker's own values are checked first, so a bad connect timeout is reported under its own key.
        broker.validate();
        checkLeaseOutlasts(broker.connectTimeoutMillis());
    }

    /** This feature's own values, each against its range. */
    void checkValues() {
        InvalidConfigurationException.checkRange(POLL_INTERVAL, pollIntervalMillis, 100, 3_600_000);
        InvalidConfigurationException.checkRange(BATCH_SIZE, batchSize, 1, 10_000);
        InvalidConfigurationException.checkRange(CONFIRM_TIMEOUT, confirmTimeoutMillis, 100, 600_000);
        InvalidConfigurationException.checkRange(TICK_BUDGET, tickBudgetMillis, 100, 3_600_000);
        InvalidConfigurationException.checkRange(LEASE, leaseSeconds, 1, 86_400);
        InvalidConfigurationException.checkRange(BACKOFF_INITIAL, backoffInitialMillis, 1, 3_600_000);
        InvalidConfigurationException.checkRange(BACKOFF_MAX, backoffMaxMillis, backoffInitialMillis, 86_400_000);
        InvalidConfigurationException.checkRange(PENDING_GRACE, pendingGraceSeconds, 1, 31_536_000);
        InvalidConfigurationException.checkRange(MAX_ENVELOPE_BYTES, maxEnvelopeBytes, 1024, LARGEST_ENVELOPE_BYTES);
        // A claim holds its envelopes as text until their confirms arrive: this bounds the heap a batch takes.
        InvalidConfigurationException.checkRange(CLAIM_MAX_BYTES, claimMaxBytes, 64 * 1024, 1024L * 1024 * 1024);
        InvalidConfigurationException.checkRange(STATEMENT_TIMEOUT, statementTimeoutMillis, 100, 600_000);
        InvalidConfigurationException.checkRange(STAMP_TIMEOUT, stampTimeoutMillis, 100, 600_000);
        InvalidConfigurationException.check(
                Arrays.stream(EnvelopeFormat.values())
                        .anyMatch(format -> format.value().equals(envelopeFormat)),
                ENVELOPE_FORMAT,
                envelopeFormat,
                "must be durability (the envelope's own JSON form) or cloudevents (CloudEvents 1.0, structured JSON)");
    }

    /** How long a batch's stamp task may wait for an executor thread before its own budget starts. */
    public static final long STAMP_START_MARGIN_MILLIS = 2_000;

    /**
     * The longest a claim can live before its stamp commits or is given up on. The drain sends the next
     * batch before it awaits this one's confirms, and stamps this one while the next is claimed
     * (docs/decisions/0041-pipelined-drain.md), so a claim lives through: its claim statement, a probe and its
     * writes (which the confirm deadline bounds); the next batch's probe, claim statement, probe and writes;
     * dropping a failed connection; the previous batch's stamp and its own (each with its start margin). A
     * lease no longer than that would let a second worker reclaim rows that are still being published, and
     * publish them twice (docs/decisions/0013-publish-round-budget.md).
     */
    public long worstClaimMillis(long connectMillis) {
        return 2 * statementTimeoutMillis
                + 2 * confirmTimeoutMillis
                + 3 * connectMillis
                + 2 * (stampTimeoutMillis + STAMP_START_MARGIN_MILLIS);
    }

    public void checkLeaseOutlasts(long connectMillis) {
        long worst = worstClaimMillis(connectMillis);
        InvalidConfigurationException.check(
                leaseSeconds * 1000L > worst,
                LEASE,
                leaseSeconds,
                "must be longer than the longest a claim can live, " + worst + " ms (2 × " + STATEMENT_TIMEOUT
                        + " + 2 × " + CONFIRM_TIMEOUT + " + 3 × durability.broker.connect-timeout-ms + 2 × ("
                        + STAMP_TIMEOUT + " + " + STAMP_START_MARGIN_MILLIS + "))");
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

    public long claimMaxBytes() {
        return claimMaxBytes;
    }

    public long statementTimeoutMillis() {
        return statementTimeoutMillis;
    }

    public Duration stampTimeout() {
        return Duration.ofMillis(stampTimeoutMillis);
    }

    public int pendingGraceSeconds() {
        return pendingGraceSeconds;
    }

    /**
     * Whether the drain also wakes when events are staged (a LISTEN connection per server), instead of only
     * on its poll interval (docs/decisions/0029-listen-notify-wake-up.md).
     */
    public boolean listenNotify() {
        return listenNotify;
    }

    /**
     * Whether a transaction that staged through {@code OutboxStager} wakes this server's drain in the process
     * when it commits (docs/decisions/0082-in-process-wake-up.md); without it the drain finds the rows on its
     * poll interval. Off only to measure what the wake-up costs staging, or to rule it out.
     */
    public boolean wakeOnStaging() {
        return wakeOnStaging;
    }

    /** The format the drain publishes envelopes in; valid once {@link #validate()} passed. */
    public EnvelopeFormat envelopeFormat() {
        return EnvelopeFormat.valueOf(envelopeFormat.toUpperCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return "outbox poll " + pollIntervalMillis + (listenNotify ? " ms and on SQL staging" : " ms")
                + (wakeOnStaging ? ", woken by this server's staging" : "") + ", batch "
                + batchSize + ", lease " + leaseSeconds
                + " s, tick budget " + tickBudgetMillis + " ms, confirm timeout " + confirmTimeoutMillis
                + " ms, backoff " + backoffInitialMillis + ".." + backoffMaxMillis + " ms, claim bound " + claimMaxBytes
                + " bytes, statement timeout " + statementTimeoutMillis + " ms, stamp timeout " + stampTimeoutMillis
                + " ms";
    }
}
