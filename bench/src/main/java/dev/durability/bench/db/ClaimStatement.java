package dev.durability.bench.db;

import dev.durability.config.control.ServiceConfig;
import dev.durability.outbox.entity.OutboxEvent;
import jakarta.persistence.NamedNativeQuery;
import java.util.Arrays;

/**
 * The drain's claim statement as it ships, read from {@code OutboxEvent}'s named query, so the benchmark times what
 * the drain runs; its schema and parameters filled in for a claim of {@code batch} rows by a worker named bench.
 */
public final class ClaimStatement {
    private ClaimStatement() {}

    public static String of(String schema, int batch) {
        return named(OutboxEvent.CLAIM)
                .replace(ServiceConfig.SCHEMA_TOKEN, schema)
                .replace("?1", "'00000000-0000-0000-0000-000000000001'")
                .replace("?2", "'bench'")
                .replace("?3", "60")
                .replace("?4", Integer.toString(batch))
                .replace("?5", "1048576");
    }

    /**
     * What the drain's claim transaction sets before its claim, as it ships (OutboxEvent's bound claim statements):
     * the planner choices that keep the claim on its index, and a statement timeout of a minute.
     */
    public static String planSettings() {
        return named(OutboxEvent.BOUND_CLAIM_STATEMENTS).replace("?1", "'60000'");
    }

    private static String named(String name) {
        return Arrays.stream(OutboxEvent.class.getAnnotationsByType(NamedNativeQuery.class))
                .filter(q -> q.name().equals(name))
                .map(NamedNativeQuery::query)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no named query " + name + " on OutboxEvent"));
    }
}
