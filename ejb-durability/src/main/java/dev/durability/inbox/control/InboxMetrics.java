package dev.durability.inbox.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/** The consumers' signals on {@code /metrics}, this server's own, tagged with the consumer's queue. */
@ApplicationScoped
public class InboxMetrics {

    @Inject
    MetricRegistry registry;

    /** Every counter of a consumer's queue, at 0 until it moves: a dashboard sees the series from the start. */
    public void register(String queue) {
        processed(queue, 0);
        dedupHit(queue, 0);
        retried(queue, 0);
        deadLettered(queue, 0);
        paused(queue, 0);
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
                        new Tag("queue", queue)));
    }
}
