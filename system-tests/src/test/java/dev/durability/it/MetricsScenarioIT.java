package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} after a scripted scenario on the shared server: every signal the operations guide and the
 * alert rules rely on is there from the start, and each moved by what the scenario implies.
 */
class MetricsScenarioIT {
    private static final String SHIPMENTS = "queue=\"orders.shipments\"";
    private final URI server = Coordinates.mainServer();

    @Test
    void everySignalIsPublishedAndMovesAsTheScenarioImplies() throws Exception {
        Pipeline.awaitQuiet();
        String text = Http.get(server, "/metrics").body();
        for (String name : List.of(
                "durability_outbox_depth",
                "durability_outbox_oldest_pending_age_seconds",
                "durability_outbox_unpublished_beyond_grace",
                "durability_outbox_publish_lag_seconds",
                "durability_outbox_published_total",
                "durability_outbox_publish_failures_total",
                "durability_outbox_lease_recoveries_total",
                "durability_inbox_processed_total{" + SHIPMENTS,
                "durability_inbox_dedup_hits_total{" + SHIPMENTS,
                "durability_inbox_retries_total{" + SHIPMENTS,
                "durability_inbox_dead_lettered_total{" + SHIPMENTS,
                "durability_dlq_outcomes_total{outcome=\"recorded\"",
                "durability_dlq_depth",
                "durability_inbox_queue_depth{" + SHIPMENTS,
                "durability_idempotency_claims_total",
                "durability_idempotency_replays_total",
                "durability_idempotency_conflicts_total",
                "durability_idempotency_mismatches_total",
                "durability_idempotency_sentinels_total",
                "durability_retention_pruned_rows_total{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"event_outbox\"",
                "durability_retention_pruned_rows_total{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"event_outbox_unroutable\"",
                "durability_retention_pruned_rows_total{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"event_inbox\"",
                "durability_retention_pruned_rows_total{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"dead_letter_audit\"",
                "durability_retention_pruned_rows_total{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"idempotency_responses\"")) {
            // Liberty sorts a sample's labels (mp_scope first): a tag is matched anywhere in the braces.
            int brace = name.indexOf('{');
            String pattern = brace < 0
                    ? "(?m)^" + Pattern.quote(name) + "[{ ]"
                    : "(?m)^" + Pattern.quote(name.substring(0, brace)) + "\\{[^}]*"
                            + Pattern.quote(name.substring(brace + 1));
            assertThat(text).as(name).containsPattern(pattern);
        }
        Map<String, Double> before = snapshot();

        String key = UUID.randomUUID().toString();
        String order = "{\"customer\":\"metrics-" + key + "\",\"sku\":\"book-1\",\"quantity\":1}";
        assertThat(post(order, key).statusCode()).isEqualTo(201);
        assertThat(post(order, key).headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(post(order.replace("\"quantity\":1", "\"quantity\":2"), key).statusCode())
                .isEqualTo(422);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        Http.metric(server, "durability_inbox_processed_total", SHIPMENTS) > before.get("processed"));
        Pipeline.awaitQuiet();
        Map<String, Double> after = snapshot();

        Map<String, Double> moved = new TreeMap<>();
        after.forEach((name, value) -> moved.put(name, value - before.get(name)));
        assertThat(moved)
                .as("one order placed with a key, replayed once, its key reused once; shipped; its "
                        + "shipment.created unroutable")
                .containsEntry("claims", 1.0)
                .containsEntry("replays", 1.0)
                .containsEntry("mismatches", 1.0)
                .containsEntry("conflicts", 0.0)
                .containsEntry("sentinels", 0.0)
                .containsEntry("published", 1.0)
                .containsEntry("lag count", 1.0)
                .containsEntry("unroutable", 1.0)
                .containsEntry("processed", 1.0)
                .containsEntry("dedup hits", 0.0)
                .containsEntry("retries", 0.0)
                .containsEntry("dead lettered", 0.0)
                .containsEntry("publish failures", 0.0);
        assertThat(after.get("depth")).isZero();
        assertThat(after.get("beyond grace")).isZero();
    }

    private Map<String, Double> snapshot() {
        Map<String, Double> values = new TreeMap<>();
        values.put("claims", Http.metric(server, "durability_idempotency_claims_total", Http.ORDERS_MODULE));
        values.put("replays", Http.metric(server, "durability_idempotency_replays_total", Http.ORDERS_MODULE));
        values.put("mismatches", Http.metric(server, "durability_idempotency_mismatches_total", Http.ORDERS_MODULE));
        values.put("conflicts", Http.metric(server, "durability_idempotency_conflicts_total", Http.ORDERS_MODULE));
        values.put("sentinels", Http.metric(server, "durability_idempotency_sentinels_total", Http.ORDERS_MODULE));
        values.put("published", Http.metric(server, "durability_outbox_published_total"));
        values.put("lag count", Http.metric(server, "durability_outbox_publish_lag_seconds_count"));
        values.put("unroutable", Http.metric(server, "durability_outbox_unroutable_total"));
        values.put("publish failures", Http.metric(server, "durability_outbox_publish_failures_total"));
        values.put("processed", Http.metric(server, "durability_inbox_processed_total", SHIPMENTS));
        values.put("dedup hits", Http.metric(server, "durability_inbox_dedup_hits_total", SHIPMENTS));
        values.put("retries", Http.metric(server, "durability_inbox_retries_total", SHIPMENTS));
        values.put("dead lettered", Http.metric(server, "durability_inbox_dead_lettered_total", SHIPMENTS));
        values.put("depth", Http.metric(server, "durability_outbox_depth"));
        values.put("beyond grace", Http.metric(server, "durability_outbox_unpublished_beyond_grace"));
        return values;
    }

    private HttpResponse<String> post(String body, String key) {
        return Http.send(HttpRequest.newBuilder(server.resolve("/api/orders"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }
}
