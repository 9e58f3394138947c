package dev.durability.retention.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The pruner's signals on {@code /metrics}, this server's own, tagged with the service, the schema and the
 * table: two deployments (or a test's schema) on one server keep separate series.
 */
@ApplicationScoped
public class RetentionMetrics {
    static final List<String> TABLES = List.of(
            "event_outbox",
            RetentionPruner.UNROUTABLE_ROWS,
            "event_inbox",
            "dead_letter_audit",
            "idempotency_responses");

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /** Per schema and table: the day partitions past the window that the table's last retirement kept. */
    private final Map<String, AtomicLong> keptPartitions = new ConcurrentHashMap<>();

    /** Per schema and table: seconds past the window, as measured last; NaN until a run or measurement. */
    private final Map<String, AtomicReference<Double>> overdue = new ConcurrentHashMap<>();

    @Inject
    MetricRegistry registry;

    @Inject
    ServiceConfig service;

    /**
     * Every table's series of the schema, at 0 until it moves, and the run interval the overdue gauge is read
     * against: called when the application starts.
     */
    public void register(String schema, Duration interval) {
        for (String table : TABLES) {
            pruned(schema, table, 0);
            failures(schema, table);
            overdueSeconds(schema, table);
        }
        partitions(schema, "event_outbox", 0, 0);
        partitions(schema, "event_inbox", 0, 0);
        long seconds = interval.toSeconds();
        registry.gauge(
                Metadata.builder()
                        .withName("durability_retention_interval")
                        .withDescription("How often this server runs retention (durability.retention.interval): a "
                                + "table whose overdue gauge stays above it is falling behind")
                        .withUnit(MetricUnits.SECONDS)
                        .build(),
                () -> seconds,
                new Tag("schema", schema),
                new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
    }

    /** How far past its window the oldest row retention may delete from the table was, when last measured. */
    public void overdue(String schema, String table, double seconds) {
        overdueSeconds(schema, table).set(seconds);
    }

    private AtomicReference<Double> overdueSeconds(String schema, String table) {
        return overdue.computeIfAbsent(schema + "\u0000" + table, key -> {
            AtomicReference<Double> seconds = new AtomicReference<>(Double.NaN);
            registry.gauge(
                    Metadata.builder()
                            .withName("durability_retention_overdue")
                            .withDescription("How far past its window the oldest row retention may delete from the "
                                    + "table was when this server last pruned or measured it (0 when none was left, "
                                    + "NaN before the first measurement): retention falls behind when it grows")
                            .withUnit(MetricUnits.SECONDS)
                            .build(),
                    seconds,
                    AtomicReference::get,
                    new Tag("schema", schema),
                    new Tag("table", table),
                    new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
            return seconds;
        });
    }

    /**
     * What retiring the table's day partitions did: {@code dropped} whole, and {@code kept} past the window because
     * they hold more rows retention keeps (pending or unroutable outbox rows, rows received within the window) than it
     * moves out of a partition.
     */
    public void partitions(String schema, String table, int dropped, int kept) {
        counter(
                        "durability_retention_dropped_partitions",
                        "Day partitions retention dropped whole because every id in them was past the window",
                        schema,
                        table)
                .inc(dropped);
        keptPartitions
                .computeIfAbsent(schema + "\u0000" + table, key -> {
                    AtomicLong count = new AtomicLong();
                    registry.gauge(
                            Metadata.builder()
                                    .withName("durability_retention_kept_partitions")
                                    .withDescription("Day partitions past the window that retention keeps because "
                                            + "they hold more rows it keeps (pending or unroutable outbox rows,"
                                            + " rows received within the window) than it moves out of one")
                                    .withUnit(MetricUnits.NONE)
                                    .build(),
                            count,
                            AtomicLong::get,
                            new Tag("schema", schema),
                            new Tag("table", table),
                            new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
                    return count;
                })
                .set(kept);
    }

    public void pruned(String schema, String table, long rows) {
        counter(
                        "durability_retention_pruned_rows",
                        "Rows deleted by retention because their window passed",
                        schema,
                        table)
                .inc(rows);
    }

    public void failed(String schema, String table) {
        failures(schema, table).inc();
    }

    private Counter failures(String schema, String table) {
        return counter(
                "durability_retention_failures",
                "Retention runs of a table that stopped on an error; the next run goes on",
                schema,
                table);
    }

    private Counter counter(String name, String description, String schema, String table) {
        return counters.computeIfAbsent(
                name + "\u0000" + schema + "\u0000" + table,
                key -> registry.counter(
                        Metadata.builder()
                                .withName(name)
                                .withDescription(description)
                                .withUnit(MetricUnits.NONE)
                                .build(),
                        new Tag("schema", schema),
                        new Tag("table", table),
                        new Tag(ServiceConfig.METRIC_LABEL, service.serviceName())));
    }
}
