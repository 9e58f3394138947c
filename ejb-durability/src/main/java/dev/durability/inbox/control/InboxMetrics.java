package dev.durability.inbox.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * The consumers' signals on {@code /metrics}, this server's own, tagged with the service and the consumer's
 * queue. The handling time is a histogram whose buckets the library's microprofile-config.properties sets
 * (docs/decisions/0072-latency-histograms-and-liveness-timestamps.md).
 */
@ApplicationScoped
public class InboxMetrics {
    static final String HANDLING = "durability_inbox_handling";

    @Inject
    MetricRegistry registry;

    @Inject
    ServiceConfig service;

    /** Every counter of a consumer's queue, at 0 until it moves: a dashboard sees the series from the start. */
    public void register(String queue) {
        processed(queue, 0);
        dedupHit(queue, 0);
        retried(queue, 0);
        deadLettered(queue, 0);
        paused(queue, 0);
        handling(queue);
    }

    /** A delivery's outcome is committed (processed, deduplicated, retried or dead-lettered) this long after it came. */
    public void handled(String queue, Duration time) {
        handling(queue).update(time);
    }

    public void processed(String queue) {
        processed(queue, 1);
    }

    public void dedupHit(String queue) {
        dedupHit(queue, 1);
    }

    public void retried(String queue) {
        retried(queue, 1);
    }

    public void deadLettered(String queue) {
        deadLettered(queue, 1);
    }

    public void paused(String queue) {
        paused(queue, 1);
    }

    private void processed(String queue, long by) {
        counter("durability_inbox_processed", "Deliveries whose handler ran and committed with their inbox row", queue)
                .inc(by);
    }

    private void dedupHit(String queue, long by) {
        counter(
                        "durability_inbox_dedup_hits",
                        "Deliveries of an envelope this consumer had already processed: acked, handler not run",
                        queue)
                .inc(by);
    }

    private void retried(String queue, long by) {
        counter(
                        "durability_inbox_retries",
                        "Failed deliveries sent to a delay queue to be tried again after their backoff",
                        queue)
                .inc(by);
    }

    private void deadLettered(String queue, long by) {
        counter(
                        "durability_inbox_dead_lettered",
                        "Deliveries this consumer gave up on (retries exhausted, permanent failure, malformed) and sent "
                                + "to the dead-letter exchange",
                        queue)
                .inc(by);
    }

    private void paused(String queue, long by) {
        counter(
                        "durability_inbox_pauses",
                        "Times a consumer stopped taking deliveries for a while because the database or the broker "
                                + "failed under it; its deliveries went back to the queue",
                        queue)
                .inc(by);
    }

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    private Timer handling(String queue) {
        return timers.computeIfAbsent(
                queue,
                key -> registry.timer(
                        Metadata.builder()
                                .withName(HANDLING)
                                .withDescription("Time from a delivery's arrival to its outcome committed (processed, "
                                        + "deduplicated, retried or dead-lettered), before its ack; a delivery the "
                                        + "consumer paused on is not counted")
                                .withUnit(MetricUnits.SECONDS)
                                .build(),
                        new Tag("queue", queue),
                        source()));
    }

    private Tag source() {
        return new Tag(ServiceConfig.METRIC_LABEL, service.serviceName());
    }

    /** Looked up once per name and queue: a delivery should not pay for building metadata. */
    private Counter counter(String name, String description, String queue) {
        return counters.computeIfAbsent(
                name + "\u0000" + queue,
                key -> registry.counter(
                        Metadata.builder()
                                .withName(name)
                                .withDescription(description)
                                .withUnit(MetricUnits.NONE)
                                .build(),
                        new Tag("queue", queue),
                        source()));
    }
}
