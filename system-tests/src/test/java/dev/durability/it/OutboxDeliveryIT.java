package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** An order placed through the API: its event reaches RabbitMQ once, or never when the transaction rolls back. */
class OutboxDeliveryIT {
    private final URI server = Coordinates.mainServer();
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    private HttpResponse<String> placeOrder(String json) {
        return Http.postJson(server, "/api/orders", json);
    }

    @Test
    void committedOrderEventArrivesOnceWithTheEnvelopeAndAmqpProperties() throws Exception {
        try (EventQueue queue = new EventQueue("order.placed")) {
            HttpResponse<String> response = placeOrder("{\"customer\":\"ada\",\"sku\":\"book-1\",\"quantity\":2}");
            assertThat(response.statusCode()).isEqualTo(201);
            String orderId = Http.json(response).getString("id");
            String eventId = Http.json(response).getString("event_id");

            // Poll interval 1 s plus a generous margin for a loaded CI machine: a bound, not a speed test.
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !queue.messagesForAggregate(orderId).isEmpty());
            Thread.sleep(2_000); // time for a duplicate to show up, were there one
            List<EventQueue.Message> messages = queue.messagesForAggregate(orderId);
            assertThat(messages).hasSize(1);

            EventQueue.Message message = messages.get(0);
            assertThat(message.properties().getMessageId()).isEqualTo(eventId);
            assertThat(message.properties().getType()).isEqualTo("order.placed");
            assertThat(message.properties().getAppId()).isEqualTo("orders");
            assertThat(message.properties().getContentType()).isEqualTo("application/json");
            assertThat(message.properties().getDeliveryMode()).isEqualTo(2);
            assertThat(message.properties().getTimestamp()).isNotNull();
            assertThat(message.properties().getHeaders())
                    .containsEntry("x-durability-publication", 0)
                    .containsEntry("schema_version", 1);

            JsonObject envelope = message.json();
            assertThat(envelope.getString("id")).isEqualTo(eventId);
            assertThat(UUID.fromString(eventId).version()).isEqualTo(7);
            assertThat(envelope.getString("event_type")).isEqualTo("order.placed");
            assertThat(envelope.getString("source_service")).isEqualTo("orders");
            assertThat(envelope.getString("aggregate_id")).isEqualTo(orderId);
            assertThat(envelope.getString("occurred_at")).endsWith("Z");
            assertThat(Instant.parse(envelope.getString("occurred_at")))
                    .isBefore(Instant.now().plusSeconds(5));
            assertThat(envelope.getInt("schema_version")).isEqualTo(1);
            assertThat(envelope.getString("correlation_id")).isNotBlank();
            assertThat(envelope.isNull("causation_id")).isTrue();
            JsonObject payload = envelope.getJsonObject("payload");
            assertThat(payload.getString("order_id")).isEqualTo(orderId);
            assertThat(payload.getString("sku")).isEqualTo("book-1");
            assertThat(payload.getInt("quantity")).isEqualTo(2);

            OutboxTable.Row row = outbox.row(UUID.fromString(eventId));
            assertThat(row.publishedAt()).isNotNull().isAfterOrEqualTo(row.createdAt());
            assertThat(row.attempts()).isZero();
            assertThat(row.lastError()).isNull();
        }
    }

    /**
     * The main test server's broker is a list of two nodes, one of which refuses every connection
     * (system-tests/src/test/liberty/server.env): each connection tries them in a random order, and the events of
     * this class and of the whole suite get through the one that answers.
     */
    @Test
    void theServerReachesTheBrokerThroughAnAddressListWithANodeDown() throws Exception {
        try (EventQueue queue = new EventQueue("order.placed")) {
            HttpResponse<String> response = placeOrder("{\"customer\":\"ada\",\"sku\":\"book-9\",\"quantity\":1}");
            assertThat(response.statusCode()).isEqualTo(201);
            String orderId = Http.json(response).getString("id");
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !queue.messagesForAggregate(orderId).isEmpty());
        }
        StringBuilder logs = new StringBuilder();
        try (Stream<Path> files = Files.list(Path.of(Coordinates.mainServerDir(), "logs"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("messages"))
                    .toList()) {
                logs.append(Files.readString(file));
            }
        }
        assertThat(logs).contains("Connected to RabbitMQ at 127.0.0.1:5672/ (of [127.0.0.1:1, 127.0.0.1:5672])");
    }

    @Test
    void rolledBackOrderLeavesNoOutboxRowAndNoMessage() throws Exception {
        try (EventQueue queue = new EventQueue("order.placed")) {
            UUID orderId = UUID.randomUUID();
            assertThat(placeOrder("{\"id\":\"" + orderId + "\",\"customer\":\"ada\",\"sku\":\"a\",\"quantity\":1}")
                            .statusCode())
                    .isEqualTo(201);
            // Same id again: the order's insert fails at its flush and the transaction rolls back, staging nothing.
            HttpResponse<String> duplicate =
                    placeOrder("{\"id\":\"" + orderId + "\",\"customer\":\"bob\",\"sku\":\"b\",\"quantity\":3}");
            assertThat(duplicate.statusCode()).isEqualTo(409);
            assertThat(duplicate.headers().firstValue("Content-Type")).hasValue("application/problem+json");

            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !queue.messagesForAggregate(orderId).isEmpty());
            Thread.sleep(3_000);
            assertThat(outbox.rowsOfAggregate(orderId)).hasSize(1);
            List<EventQueue.Message> messages = queue.messagesForAggregate(orderId);
            assertThat(messages).hasSize(1);
            assertThat(messages.get(0).json().getJsonObject("payload").getString("customer"))
                    .isEqualTo("ada");
        }
    }

    @Test
    void invalidOrderIsRefusedAndStagesNothing() throws Exception {
        UUID orderId = UUID.randomUUID();
        HttpResponse<String> response =
                placeOrder("{\"id\":\"" + orderId + "\",\"customer\":\"ada\",\"sku\":\"a\",\"quantity\":0}");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(Http.json(response).getString("detail")).contains("quantity");
        assertThat(outbox.rowsOfAggregate(orderId)).isEmpty();
    }

    @Test
    void metricsShowTheOutboxFigures() throws Exception {
        double publishedBefore = Http.metric(server, "durability_outbox_published_total");
        try (EventQueue queue = new EventQueue("order.placed")) {
            String orderId = Http.json(placeOrder("{\"customer\":\"ada\",\"sku\":\"m\",\"quantity\":1}"))
                    .getString("id");
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !queue.messagesForAggregate(orderId).isEmpty());
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> Http.metric(server, "durability_outbox_published_total") > publishedBefore);
        String metrics = Http.get(server, "/metrics").body();
        assertThat(metrics)
                .contains(
                        "durability_outbox_depth{",
                        "durability_outbox_oldest_pending_age_seconds{",
                        "durability_outbox_unpublished_beyond_grace{",
                        "durability_outbox_rows_with_errors{",
                        "durability_outbox_publish_failures_total{",
                        "durability_outbox_unroutable_total{",
                        "durability_outbox_lease_recoveries_total{",
                        "durability_outbox_publish_lag_seconds_count{",
                        "# HELP durability_outbox_depth Pending outbox rows: neither published nor returned unroutable");
        assertThat(Http.metric(server, "durability_outbox_publish_lag_seconds_count"))
                .isPositive();
    }
}
