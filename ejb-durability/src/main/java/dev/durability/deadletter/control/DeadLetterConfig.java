package dev.durability.deadletter.control;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import dev.durability.config.control.ServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The dead-letter queue consumer's knobs, {@code durability.dead-letter.*}; defaults in {@code META-INF/microprofile-config.properties}. */
@ApplicationScoped
public class DeadLetterConfig implements FeatureConfig {
    static final String QUEUE = "durability.dead-letter.queue";
    static final String THRESHOLD = "durability.dead-letter.threshold";
    static final String WINDOW = "durability.dead-letter.window-seconds";
    static final String PREFETCH = "durability.dead-letter.prefetch";
    static final String RECORD_ATTEMPTS = "durability.dead-letter.record-attempts";
    static final String PARK = "durability.dead-letter.park-ms";
    static final String QUEUE_TYPE = "durability.dead-letter.queue-type";
    private static final String QUEUE_NAME = "[A-Za-z0-9][A-Za-z0-9._:-]{0,149}";

    @Inject
    ServiceConfig service;

    @Inject
    @ConfigProperty(name = QUEUE)
    Optional<String> queue;

    @Inject
    @ConfigProperty(name = THRESHOLD)
    int threshold;

    @Inject
    @ConfigProperty(name = WINDOW)
    long windowSeconds;

    @Inject
    @ConfigProperty(name = PREFETCH)
    int prefetch;

    @Inject
    @ConfigProperty(name = RECORD_ATTEMPTS)
    int recordAttempts;

    @Inject
    @ConfigProperty(name = PARK)
    long parkMillis;

    @Inject
    @ConfigProperty(name = QUEUE_TYPE)
    String queueType;

    @Override
    public void validate() {
        queue.ifPresent(name -> InvalidConfigurationException.check(
                name.matches(QUEUE_NAME) && !name.startsWith("amq."),
                QUEUE,
                name,
                "must be 1-150 letters, digits, '.', '_', ':' or '-', not starting with 'amq.'"));
        InvalidConfigurationException.checkRange(THRESHOLD, threshold, 1, 1_000_000);
        InvalidConfigurationException.checkRange(WINDOW, windowSeconds, 1, 31_536_000);
        InvalidConfigurationException.checkRange(PREFETCH, prefetch, 1, 1000);
        InvalidConfigurationException.checkRange(RECORD_ATTEMPTS, recordAttempts, 1, 20);
        InvalidConfigurationException.checkRange(PARK, parkMillis, 100, 600_000);
        InvalidConfigurationException.check(
                queueType.equals("classic") || queueType.equals("quorum"),
                QUEUE_TYPE,
                queueType,
                "must be classic or quorum");
    }

    /**
     * Whether the dead-letter queue is a quorum queue: on a cluster, a classic one lives on one node and goes
     * with it (docs/decisions/0089-cluster-and-delivery-limits.md).
     */
    public boolean quorum() {
        return queueType.equals("quorum");
    }

    /** The service's dead-letter queue; by default {@code <service-name>.dead-letters}. */
    public String queue() {
        return queue.orElseGet(() -> service.serviceName() + ".dead-letters");
    }

    /** Dead letters of one event type inside the window beyond which one threshold event is staged. */
    public int threshold() {
        return threshold;
    }

    public long windowSeconds() {
        return windowSeconds;
    }

    public int prefetch() {
        return prefetch;
    }

    /** Tries at recording one dead letter while the database fails, before it is parked. */
    public int recordAttempts() {
        return recordAttempts;
    }

    /** How long a dead letter that could not be recorded waits before it is tried again (it stays with its consumer). */
    public Duration park() {
        return Duration.ofMillis(parkMillis);
    }

    @Override
    public String toString() {
        return "dead letters to " + queueType + " queue " + queue() + ", threshold " + threshold + " per "
                + windowSeconds + " s";
    }
}
