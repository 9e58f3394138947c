package dev.durability.inbox.control;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import dev.durability.inbox.InboxConsumer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The consumers' knobs, {@code durability.inbox.*}; defaults in {@code META-INF/microprofile-config.properties}. */
@ApplicationScoped
public class InboxConfig implements FeatureConfig {
    static final String ENABLED = "durability.inbox.enabled";
    static final String PREFETCH = "durability.inbox.prefetch";
    static final String CONCURRENCY = "durability.inbox.concurrency";
    static final String MAX_ATTEMPTS = "durability.inbox.max-attempts";
    static final String BACKOFF_INITIAL = "durability.inbox.backoff-initial-ms";
    static final String BACKOFF_MAX = "durability.inbox.backoff-max-ms";
    static final String SUPERVISE_INTERVAL = "durability.inbox.supervise-interval-ms";
    static final String SEND_TIMEOUT = "durability.inbox.send-timeout-ms";
    static final String PAUSE = "durability.inbox.pause-ms";
    static final String DELIVERY_LIMIT = "durability.inbox.quorum-delivery-limit";
    static final String DEAD_SESSION = "durability.inbox.dead-session-seconds";
    static final String QUEUE_TYPE = "durability.inbox.queue-type";

    @Inject
    @ConfigProperty(name = ENABLED)
    boolean enabled;

    @Inject
    @ConfigProperty(name = PREFETCH)
    int prefetch;

    @Inject
    @ConfigProperty(name = CONCURRENCY)
    int concurrency;

    @Inject
    @ConfigProperty(name = MAX_ATTEMPTS)
    int maxAttempts;

    @Inject
    @ConfigProperty(name = BACKOFF_INITIAL)
    long backoffInitialMillis;

    @Inject
    @ConfigProperty(name = BACKOFF_MAX)
    long backoffMaxMillis;

    @Inject
    @ConfigProperty(name = SUPERVISE_INTERVAL)
    long superviseIntervalMillis;

    @Inject
    @ConfigProperty(name = SEND_TIMEOUT)
    long sendTimeoutMillis;

    @Inject
    @ConfigProperty(name = PAUSE)
    long pauseMillis;

    @Inject
    @ConfigProperty(name = DELIVERY_LIMIT)
    int quorumDeliveryLimit;

    @Inject
    @ConfigProperty(name = DEAD_SESSION)
    int deadSessionSeconds;

    @Inject
    @ConfigProperty(name = QUEUE_TYPE)
    String queueType;

    @Override
    public void validate() {
        InvalidConfigurationException.checkRange(PREFETCH, prefetch, 1, 1000);
        InvalidConfigurationException.checkRange(CONCURRENCY, concurrency, 1, 64);
        InvalidConfigurationException.checkRange(MAX_ATTEMPTS, maxAttempts, 1, ConsumerDeclaration.MOST_ATTEMPTS);
        InvalidConfigurationException.checkRange(BACKOFF_INITIAL, backoffInitialMillis, 10, 3_600_000);
        InvalidConfigurationException.checkRange(BACKOFF_MAX, backoffMaxMillis, backoffInitialMillis, 86_400_000);
        InvalidConfigurationException.checkRange(SUPERVISE_INTERVAL, superviseIntervalMillis, 100, 600_000);
        InvalidConfigurationException.checkRange(SEND_TIMEOUT, sendTimeoutMillis, 100, 600_000);
        InvalidConfigurationException.checkRange(PAUSE, pauseMillis, 100, 600_000);
        // Redeliveries that reach the limit are dead-lettered by the broker: it must leave room for the
        // application's own retries, which ack and re-publish and so never count against it.
        InvalidConfigurationException.checkRange(DELIVERY_LIMIT, quorumDeliveryLimit, 2, 1000);
        InvalidConfigurationException.checkRange(DEAD_SESSION, deadSessionSeconds, 1, 86_400);
        InvalidConfigurationException.check(
                queueType.equals("classic") || queueType.equals("quorum"),
                QUEUE_TYPE,
                queueType,
                "must be classic or quorum");
    }

    /**
     * The type of one consumer's queue and its delay queues: its own if it declared one, the configured one otherwise
     * (a cluster's operator chooses quorum, docs/decisions/0089-cluster-and-delivery-limits.md).
     */
    public InboxConsumer.QueueType queueType(ConsumerDeclaration declaration) {
        if (declaration.queueType() != InboxConsumer.QueueType.CONFIGURED) {
            return declaration.queueType();
        }
        return queueType.equals("quorum") ? InboxConsumer.QueueType.QUORUM : InboxConsumer.QueueType.CLASSIC;
    }

    /** The retry policy of one consumer: its own attempts if it declared them, the configured ones otherwise. */
    public RetryPolicy retryPolicy(ConsumerDeclaration declaration) {
        return new RetryPolicy(
                declaration.maxAttempts() > 0 ? declaration.maxAttempts() : maxAttempts,
                Duration.ofMillis(backoffInitialMillis),
                Duration.ofMillis(backoffMaxMillis));
    }

    /**
     * Whether this server consumes at all: off for a replica that only serves requests and drains the
     * outbox, while other replicas consume.
     */
    public boolean enabled() {
        return enabled;
    }

    public int prefetch(ConsumerDeclaration declaration) {
        return declaration.prefetch() > 0 ? declaration.prefetch() : prefetch;
    }

    public int concurrency(ConsumerDeclaration declaration) {
        return declaration.concurrency() > 0 ? declaration.concurrency() : concurrency;
    }

    public Duration superviseInterval() {
        return Duration.ofMillis(superviseIntervalMillis);
    }

    public Duration sendTimeout() {
        return Duration.ofMillis(sendTimeoutMillis);
    }

    /** How long a consumer stops taking deliveries after it could not reach the database. */
    public Duration pause() {
        return Duration.ofMillis(pauseMillis);
    }

    public int quorumDeliveryLimit() {
        return quorumDeliveryLimit;
    }

    /**
     * How long a delivery's transaction may sit idle before the database ends its session, and how long a delivery
     * waits for another's lock on the same envelope: a server that died without closing its connection holds the
     * envelope's inbox row no longer than this (docs/decisions/0087-dead-sessions.md).
     */
    public Duration deadSession() {
        return Duration.ofSeconds(deadSessionSeconds);
    }

    @Override
    public String toString() {
        return (enabled ? "" : "consumers disabled, ") + "inbox prefetch " + prefetch + ", concurrency " + concurrency
                + ", " + maxAttempts + " attempts, backoff " + backoffInitialMillis + "-" + backoffMaxMillis
                + " ms, dead sessions ended after " + deadSessionSeconds + " s, " + queueType
                + " queues unless a consumer chooses";
    }
}
