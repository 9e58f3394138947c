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
 * alert rules rely on is there from the start, carries the service, and each moved by what the scenario
 * implies; the latencies are histograms with the documented buckets (docs/metrics.md).
 */
class MetricsScenarioIT {
    private static final String SHIPMENTS = "queue=\"orders.shipments\"";
    /** The shared server's durability.service-name (liberty-config/server.xml). */
    private static final String SERVICE = "source_service=\"orders\"";

    private static final List<Double> LAG_BUCKETS = List.of(
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, Double.POSITIVE_INFINITY);
    private static final List<Double> HANDLING_BUCKETS = List.of(
            0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, Double.POSITIVE_INFINITY);
    private final URI server = Coordinates.mainServer();

    @Test
    void everySignalIsPublishedAndMovesAsTheScenarioImplies() throws Exception {
        Pipeline.awaitQuiet();
        String text = Http.get(server, "/metrics").body();
        for (String name : List.of(
                "durability_outbox_depth",
                "durability_outbox_oldest_pending_age_seconds",
                "durability_outbox_unpublished_beyond_grace",
                "durability_outbox_publish_lag_seconds_bucket",
                "durability_outbox_drain_step_seconds_bucket{step=\"claim\"",
                "durability_outbox_drain_step_seconds_bucket{step=\"send\"",
                "durability_outbox_drain_step_seconds_bucket{step=\"confirm\"",
                "durability_outbox_drain_step_seconds_bucket{step=\"stamp\"",
                "durability_outbox_drain_last_tick_timestamp_seconds",
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
                "durability_inbox_handling_seconds_bucket{" + SHIPMENTS,
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
                        + "\",table=\"idempotency_responses\"",
                "durability_retention_overdue_seconds{schema=\"" + Coordinates.mainSchema()
                        + "\",table=\"event_inbox\"")) {
            // Liberty sorts a sample's labels by name: each tag is matched anywhere in the braces.
            int brace = name.indexOf('{');
            StringBuilder pattern = new StringBuilder("(?m)^")
                    .append(Pattern.quote(brace < 0 ? name : name.substring(0, brace)))
                    .append("\\{");
            if (brace >= 0) {
                for (String label : name.substring(brace + 1).split("(?<=\"),")) {
                    pattern.append("(?=[^}]*").append(Pattern.quote(label)).append(")");
                }
            }
            assertThat(text).as(name).containsPattern(pattern.toString());
        }
        List<String> samples =
                text.lines().filter(line -> line.startsWith("durability_")).toList();
        assertThat(samples)
                .as("every durability_* series names its service")
                .hasSizeGreaterThan(50)
                .allSatisfy(line -> assertThat(line).contains(SERVICE));
        assertThat(text)
                .as("latencies are histograms, without client-side quantiles no query could combine")
                .contains("# TYPE durability_outbox_publish_lag_seconds histogram")
                .contains("# TYPE durability_inbox_handling_seconds histogram")
                .doesNotContainPattern("(?m)^durability_outbox_publish_lag_seconds\\{[^}]*quantile=")
                .doesNotContainPattern("(?m)^durability_inbox_handling_seconds\\{[^}]*quantile=");
        assertThat(buckets(text, "durability_outbox_publish_lag_seconds_bucket", SERVICE))
                .containsExactlyElementsOf(LAG_BUCKETS);
        assertThat(buckets(text, "durability_inbox_handling_seconds_bucket", SHIPMENTS))
                .containsExactlyElementsOf(HANDLING_BUCKETS);
        assertThat(buckets(text, "durability_outbox_drain_step_seconds_bucket", "step=\"stamp\""))
                .containsExactlyElementsOf(HANDLING_BUCKETS);
        assertThat(text)
                .as("each table's retention measured at start: a number, not NaN (unknown)")
                .containsPattern("(?m)^durability_retention_overdue_seconds\\{(?=[^}]*table=\"event_outbox\")"
                        + "(?=[^}]*schema=\"" + Coordinates.mainSchema() + "\")[^}]*} [0-9.E+-]+$");
        assertThat(Http.metric(
                        server, "durability_retention_interval_seconds", "schema=\"" + Coordinates.mainSchema() + "\""))
                .as("the run interval DurabilityRetentionBehind compares with: the shipped PT1H")
                .isEqualTo(3600.0);
        assertThat(Http.secondsSince(server, "durability_outbox_drain_last_tick_timestamp_seconds"))
                .as("the drain's last tick, a timestamp on the wall clock")
                .isBetween(-5.0, 10.0);
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
                .containsEntry("lag in +Inf bucket", 1.0)
                .containsEntry("handled", 1.0)
                .containsEntry("handled in +Inf bucket", 1.0)
                .containsEntry("unroutable", 1.0)
                .containsEntry("processed", 1.0)
                .containsEntry("dedup hits", 0.0)
                .containsEntry("retries", 0.0)
                .containsEntry("dead lettered", 0.0)
                .containsEntry("publish failures", 0.0)
                // Two batches, order.placed and later the shipment.created its consumer staged: each went through
                // every step once (a claim that found nothing is not a batch).
                .containsEntry("claim steps", 2.0)
                .containsEntry("send steps", 2.0)
                .containsEntry("confirm steps", 2.0)
                .containsEntry("stamp steps", 2.0);
        assertThat(moved.get("stamp seconds"))
                .as("the two stamps' transactions took some time, well under the stamp budget")
                .isPositive()
                .isLessThan(30.0);
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
        values.put("lag count", Http.metric(server, "durability_outbox_publish_lag_seconds_count", SERVICE));
        values.put(
                "lag in +Inf bucket",
                Http.metric(server, "durability_outbox_publish_lag_seconds_bucket", SERVICE, "le=\"+Inf\""));
        values.put("handled", Http.metric(server, "durability_inbox_handling_seconds_count", SHIPMENTS, SERVICE));
        values.put(
                "handled in +Inf bucket",
                Http.metric(server, "durability_inbox_handling_seconds_bucket", SHIPMENTS, SERVICE, "le=\"+Inf\""));
        values.put("unroutable", Http.metric(server, "durability_outbox_unroutable_total"));
        values.put("publish failures", Http.metric(server, "durability_outbox_publish_failures_total"));
        values.put("processed", Http.metric(server, "durability_inbox_processed_total", SHIPMENTS));
        values.put("dedup hits", Http.metric(server, "durability_inbox_dedup_hits_total", SHIPMENTS));
        values.put("retries", Http.metric(server, "durability_inbox_retries_total", SHIPMENTS));
        values.put("dead lettered", Http.metric(server, "durability_inbox_dead_lettered_total", SHIPMENTS));
        for (String step : List.of("claim", "send", "confirm", "stamp")) {
            values.put(
                    step + " steps",
                    Http.metric(
                            server, "durability_outbox_drain_step_seconds_count", "step=\"" + step + "\"", SERVICE));
        }
        values.put(
                "stamp seconds",
                Http.metric(server, "durability_outbox_drain_step_seconds_sum", "step=\"stamp\"", SERVICE));
        values.put("depth", Http.metric(server, "durability_outbox_depth"));
        values.put("beyond grace", Http.metric(server, "durability_outbox_unpublished_beyond_grace"));
        return values;
    }

    /** The upper bounds of a histogram's buckets, in the order /metrics lists them, for the series with {@code label}. */
    private static List<Double> buckets(String text, String name, String label) {
        Pattern le = Pattern.compile("le=\"([^\"]+)\"");
        return text.lines()
                .filter(line -> line.startsWith(name + "{") && line.contains(label))
                .map(line -> le.matcher(line))
                .filter(java.util.regex.Matcher::find)
                .map(match ->
                        match.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(match.group(1)))
                .toList();
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
