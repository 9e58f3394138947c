package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.control.CloudEventJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * CloudEvents interop (docs/envelope.md, "CloudEvents"): a server configured with
 * {@code durability.envelope.format=cloudevents} (its own schema, on the shared events exchange) publishes a
 * placed order as a structured CloudEvent, which the shared server's shipments consumer, configured with the
 * default format, ships once; a CloudEvent another stack publishes straight to the broker is shipped too, and
 * those the envelope cannot hold or the handler refuses are dead-lettered once, with their facts in the audit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CloudEventsIT {
    private static final String SCHEMA = "durability_cloudevents";
    private static final String QUEUE = "orders.shipments";
    private static final Duration DELIVERED = Duration.ofSeconds(30);

    private final ConsumerTables shared = new ConsumerTables(Coordinates.mainSchema());
    private LibertyServer server;

    @BeforeAll
    void startServer() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        server = LibertyServer.copyOfMain(
                "durability-cloudevents",
                9186,
                Map.of(
                        "DB_SCHEMA", SCHEMA,
                        "DURABILITY_INSTANCE_NAME", "it-cloudevents",
                        "DURABILITY_ENVELOPE_FORMAT", "cloudevents"));
        server.start();
        server.awaitApplicationStarted();
    }

    @AfterAll
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anOrderPlacedIsPublishedAsACloudEventAndShippedOnce() throws Exception {
        try (EventQueue placed = new EventQueue("order.placed")) {
            HttpResponse<String> response = Http.postJson(
                    server.uri(), "/api/orders", "{\"customer\":\"ada\",\"sku\":\"kite\",\"quantity\":2}");
            assertThat(response.statusCode()).isEqualTo(201);
            UUID orderId = UUID.fromString(Http.json(response).getString("id"));
            String eventId = Http.json(response).getString("event_id");

            EventQueue.Message message = await("the order's event on a queue of the test's own")
                    .atMost(DELIVERED)
                    .until(
                            () -> placed.messages().stream()
                                    .filter(m -> eventId.equals(m.id()))
                                    .findFirst(),
                            Optional::isPresent)
                    .orElseThrow();
            assertThat(message.properties().getContentType()).isEqualTo("application/cloudevents+json");
            JsonObject event = message.json();
            assertThat(event.getString("specversion")).isEqualTo("1.0");
            assertThat(event.getString("id")).isEqualTo(eventId);
            assertThat(event.getString("type")).isEqualTo("order.placed");
            assertThat(event.getString("source")).isEqualTo("orders");
            assertThat(event.getString("subject")).isEqualTo(orderId.toString());
            assertThat(event.getString("datacontenttype")).isEqualTo("application/json");
            assertThat(event.getString("correlationid")).isNotBlank();
            assertThat(event.getJsonObject("data").getString("sku")).isEqualTo("kite");

            await("shipped by the shared server's consumer")
                    .atMost(DELIVERED)
                    .until(() -> shared.shipmentsForOrder(orderId) == 1);
            ConsumerTables.InboxRow inbox = shared.inbox(QUEUE, UUID.fromString(eventId));
            assertThat(inbox.processedAt()).isNotNull();
            assertThat(inbox.attempts()).isEqualTo(1);
        }
    }

    @Test
    void foreignCloudEventsAreShippedOrDeadLetteredOnceWithTheirFacts() throws Exception {
        String source = "https://shop.example.com/checkout";
        UUID orderId = UUID.randomUUID();
        String shippedId = "shop-" + UUID.randomUUID();
        String refusedId = "shop-" + UUID.randomUUID();
        String malformedId = "shop-" + UUID.randomUUID();
        // Another stack's events: no Durability extension, ids that are no UUIDs.
        JsonObject shipped = Json.createObjectBuilder()
                .add("specversion", "1.0")
                .add("id", shippedId)
                .add("source", source)
                .add("type", "order.placed")
                .add("time", "2026-12-05T14:30:00+02:00")
                .add("datacontenttype", "application/json")
                .add(
                        "data",
                        Json.createObjectBuilder()
                                .add("order_id", orderId.toString())
                                .add("sku", "drum")
                                .add("quantity", 1))
                .build();
        // The shipments handler refuses a quantity of 0 as a permanent failure.
        JsonObject refused = Json.createObjectBuilder(shipped)
                .add("id", refusedId)
                .remove("time")
                .add(
                        "data",
                        Json.createObjectBuilder()
                                .add("order_id", UUID.randomUUID().toString())
                                .add("sku", "drum")
                                .add("quantity", 0))
                .build();
        // No source: not an event the envelope can hold.
        JsonObject malformed = Json.createObjectBuilder(shipped)
                .add("id", malformedId)
                .remove("source")
                .build();
        try (Amqp amqp = new Amqp()) {
            for (JsonObject event : new JsonObject[] {malformed, refused, shipped}) {
                amqp.publish(
                        EventQueue.EXCHANGE,
                        "order.placed",
                        Amqp.persistent()
                                .contentType(CloudEventJson.CONTENT_TYPE)
                                .build(),
                        event.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        await("the foreign order shipped").atMost(DELIVERED).until(() -> shared.shipmentsForOrder(orderId) == 1);
        UUID shippedEnvelope = CloudEventJson.envelopeId(source, shippedId);
        assertThat(shared.inbox(QUEUE, shippedEnvelope).attempts()).isEqualTo(1);

        // One consumer takes them in order: both others were settled before the shipped one.
        UUID refusedEnvelope = CloudEventJson.envelopeId(source, refusedId);
        await("both dead letters audited")
                .atMost(DELIVERED)
                .until(() ->
                        shared.deadLetters("envelope_id = ?", refusedEnvelope).size()
                                        + shared.deadLetters("envelope->>'id' = ?", malformedId)
                                                .size()
                                == 2);
        ConsumerTables.DeadLetterRow refusal =
                shared.deadLetters("envelope_id = ?", refusedEnvelope).get(0);
        assertThat(refusal.originalQueue()).isEqualTo(QUEUE);
        assertThat(refusal.eventType()).isEqualTo("order.placed");
        assertThat(refusal.reason()).startsWith("permanent failure");
        assertThat(refusal.occurrenceToken()).contains(refusedEnvelope.toString());
        assertThat(shared.inbox(QUEUE, refusedEnvelope).attempts()).isEqualTo(1);
        ConsumerTables.DeadLetterRow rejection =
                shared.deadLetters("envelope->>'id' = ?", malformedId).get(0);
        assertThat(rejection.reason()).startsWith("malformed envelope: source is required");
        assertThat(rejection.envelopeId()).isNull();
        assertThat(rejection.occurrenceToken())
                .as("its queue, message id and bytes")
                .startsWith("malformed:");
    }
}
