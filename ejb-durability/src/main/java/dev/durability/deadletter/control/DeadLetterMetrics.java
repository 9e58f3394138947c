package dev.durability.deadletter.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/** The dead-letter consumer's signals on {@code /metrics}, this server's own, tagged with the service. */
@ApplicationScoped
public class DeadLetterMetrics {

    /** What became of one delivery from the dead-letter queue. */
    public enum Outcome {
        /** A new occurrence, one new audit row. */
        RECORDED,
        /** An occurrence already recorded, identical: acked, no row. */
        DUPLICATE,
        /** Recorded tokenless and flagged: a divergent claim of a token, or content the database refused. */
        QUARANTINED,
        /** Not recordable now (the database failing): requeued after a delay, nothing acked. */
        PARKED
    }

    @Inject
    MetricRegistry registry;

    @Inject
    ServiceConfig service;

    private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
    private Counter thresholdsExceeded;

    /**
     * Registered once: a dead letter should not pay for building metadata. Called again by the consumers'
     * supervisor at start (a registration repeated finds the same counters), so every outcome's series is
     * on {@code /metrics} at 0 before the first dead letter.
     */
    @PostConstruct
    public void register() {
        Tag source = new Tag(ServiceConfig.METRIC_LABEL, service.serviceName());
        Metadata outcome = Metadata.builder()
                .withName("durability_dlq_outcomes")
                .withDescription(
                        "Deliveries from the dead-letter queue by outcome: recorded, duplicate, quarantined, parked")
                .withUnit(MetricUnits.NONE)
                .build();
        for (Outcome value : Outcome.values()) {
            outcomes.put(
                    value,
                    registry.counter(outcome, new Tag("outcome", value.name().toLowerCase(Locale.ROOT)), source));
        }
        thresholdsExceeded = registry.counter(
                Metadata.builder()
                        .withName("durability_dlq_threshold_exceeded")
                        .withDescription("dlq.threshold_exceeded events staged: an event type's dead letters crossed "
                                + "durability.dead-letter.threshold inside the window")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                source);
    }

    public void outcome(Outcome outcome) {
        outcomes.get(outcome).inc();
    }

    public void thresholdExceeded() {
        thresholdsExceeded.inc();
    }
}
