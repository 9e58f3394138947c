package dev.durability.retention.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    @Inject
    MetricRegistry registry;

    @Inject
    ServiceConfig service;

    /** Every table's series of the schema, at 0 until it moves: called when the application starts. */
    public void register(String schema) {
        for (String table : TABLES) {
            pruned(schema, table, 0);
            failures(schema, table);
        }
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
