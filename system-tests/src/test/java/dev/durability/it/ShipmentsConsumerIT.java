package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.deadletter.control.OccurrenceToken;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.Json;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The demo's shipments consumer on the deployed EAR: an order placed through the API becomes exactly one
 * shipment and one {@code shipment.created}, however often its event arrives; what it cannot process is
 * dead-lettered and audited, and it keeps consuming.
 */
class ShipmentsConsumerIT {
    private static final String QUEUE = "orders.shipments";
    private static final String QUEUE_LABEL = "queue=\"" + QUEUE + "\"";
    private final URI server = Coordinates.mainServer();
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());

    @Test
    void placedOrderBecomesOneShipmentAndOneShipmentCreatedEvent() throws Exception {
        try (EventQueue shipments = new EventQueue("shipment.created")) {
            HttpResponse<String> response =
                    Http.postJson(server, "/api/orders", "{\"customer\":\"ada\",\"sku\":\"lamp\",\"quantity\":3}");
            assertThat(response.statusCode()).isEqualTo(201);
            UUID orderId = UUID.fromString(Http.json(response).getString("id"));
            UUID eventId = UUID.fromString(Http.json(response).getString("event_id"));

            await().atMost(Duration.ofSeconds(30)).until(() -> tables.shipmentsForOrder(orderId) == 1);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> shipments.messages().stream()
                            .anyMatch(m -> m.json()
                                    .getJsonObject("payload")
                                    .getString("order_id")
                                    .equals(orderId.toString())));
            ConsumerTables.InboxRow inbox = tables.inbox(QUEUE, eventId);
            assertThat(inbox.processedAt()).isNotNull();
            assertThat(inbox.attempts()).isEqualTo(1);
            assertThat(inbox.lastError()).isNull();
            EventQueue.Message created = shipments.messages().stream()
                    .filter(m -> m.json()
                            .getJsonObject("payload")
                            .getString("order_id")
                            .equals(orderId.toString()))
                    .findFirst()
                    .orElseThrow();
            assertThat(created.json().getJsonObject("payload").getString("sku")).isEqualTo("lamp");
            assertThat(created.json().getJsonObject("payload").getInt("quantity"))
                    .isEqualTo(3);
        }
    }

    @Test
    void theSameEnvelopeFiveTimesHasItsEffectOnceAndCountsFourDedupHits() throws Exception {
        UUID orderId = UUID.randomUUID();
        EventEnvelope placed = orderPlaced(orderId);
        // Orders of earlier tests are still becoming shipments: counted deltas start once they have.
        Pipeline.awaitQuiet();
        double processedBefore = Http.metric(server, "durability_inbox_processed_total", QUEUE_LABEL);
        double hitsBefore = Http.metric(server, "durability_inbox_dedup_hits_total", QUEUE_LABEL);
        try (Amqp amqp = new Amqp()) {
            for (int i = 0; i < 5; i++) {
                amqp.publishEvent(placed);
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Http.metric(server, "durability_inbox_dedup_hits_total", QUEUE_LABEL) - hitsBefore >= 4);
        Thread.sleep(1_000); // a fifth run of the handler would show now
        assertThat(tables.shipmentsForOrder(orderId)).isEqualTo(1);
        assertThat(Http.metric(server, "durability_inbox_dedup_hits_total", QUEUE_LABEL) - hitsBefore)
                .isEqualTo(4);
        assertThat(Http.metric(server, "durability_inbox_processed_total", QUEUE_LABEL) - processedBefore)
                .isEqualTo(1);
        assertThat(tables.inbox(QUEUE, placed.id()).attempts()).isEqualTo(1);
    }

    @Test
    void malformedMessagesAreAuditedWithTheirBytesAndTheConsumerGoesOn() throws Exception {
        String marker = UUID.randomUUID().toString();
        byte[] notJson = ("not json " + marker).getBytes(StandardCharsets.UTF_8);
        byte[] noId = Json.createObjectBuilder()
                .add("event_type", "order.placed")
                .add("marker", marker)
                .add("payload", Json.createObjectBuilder())
                .build()
                .toString()
                .getBytes(StandardCharsets.UTF_8);
        byte[] invalidUtf8 =
                concat(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF}, marker.getBytes(StandardCharsets.UTF_8));
        // Deeper than the JSON reader goes (1,000 levels): kept as raw bytes, never an exception that loops.
        byte[] nested = ("{\"marker\":\"" + marker + "\",\"payload\":" + "[".repeat(5_000) + "]".repeat(5_000) + "}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] noise = new byte[2 * 1024 * 1024];
        new Random(7).nextBytes(noise);
        System.arraycopy(marker.getBytes(StandardCharsets.UTF_8), 0, noise, 0, marker.length());
        UUID orderId = UUID.randomUUID();
        try (Amqp amqp = new Amqp()) {
            for (byte[] body : List.of(notJson, noId, invalidUtf8, nested, noise)) {
                amqp.toQueue(QUEUE, body);
            }
            EventEnvelope good = orderPlaced(orderId);
            amqp.publishEvent(good);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> tables.shipmentsForOrder(orderId) == 1);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> tables.deadLetters(
                                        "original_queue = ? AND (position(convert_to(?, 'UTF8') in raw_bytes) > 0 "
                                                + "OR envelope->>'marker' = ?)",
                                        QUEUE,
                                        marker,
                                        marker)
                                .size()
                        == 5);
        List<ConsumerTables.DeadLetterRow> rows = tables.deadLetters(
                "original_queue = ? AND (position(convert_to(?, 'UTF8') in raw_bytes) > 0 OR envelope->>'marker' = ?)",
                QUEUE,
                marker,
                marker);
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.path()).isEqualTo("application");
            assertThat(row.reason()).startsWith("malformed envelope");
            assertThat(row.occurrenceToken()).startsWith("malformed:");
            assertThat(row.quarantined()).isFalse();
        });
        assertThat(rows)
                .extracting(ConsumerTables.DeadLetterRow::occurrenceToken)
                .doesNotHaveDuplicates();
        assertThat(rows.stream().filter(r -> r.rawBytes() != null).map(ConsumerTables.DeadLetterRow::rawBytes))
                .containsExactlyInAnyOrder(notJson, invalidUtf8, nested, noise);
        assertThat(rows.stream().filter(r -> r.envelope() != null))
                .singleElement()
                .satisfies(row -> assertThat(Json.createReader(new java.io.StringReader(row.envelope()))
                                .readObject())
                        .isEqualTo(Json.createReader(new java.io.StringReader(new String(noId, StandardCharsets.UTF_8)))
                                .readObject()));
    }

    /**
     * The consumer cannot tell a malformed message redelivered after a lost ack from the same bytes sent again
     * under the same message id: both are one occurrence, audited once; the same bytes under another message id
     * are another message (docs/decisions/0090-malformed-dead-letter-occurrences.md).
     */
    @Test
    void aMalformedMessageDeliveredAgainIsAuditedOnce() throws Exception {
        String marker = UUID.randomUUID().toString();
        byte[] notJson = ("not json " + marker).getBytes(StandardCharsets.UTF_8);
        String where = "original_queue = ? AND position(convert_to(?, 'UTF8') in raw_bytes) > 0";
        String duplicate = "outcome=\"duplicate\"";
        double duplicates = Http.metric(server, "durability_dlq_outcomes_total", duplicate);
        try (Amqp amqp = new Amqp()) {
            amqp.publish(
                    "", QUEUE, Amqp.persistent().messageId("first-" + marker).build(), notJson);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.deadLetters(where, QUEUE, marker).size() == 1);
            amqp.publish(
                    "", QUEUE, Amqp.persistent().messageId("first-" + marker).build(), notJson);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.metric(server, "durability_dlq_outcomes_total", duplicate) == duplicates + 1);
            amqp.publish(
                    "", QUEUE, Amqp.persistent().messageId("second-" + marker).build(), notJson);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.deadLetters(where, QUEUE, marker).size() == 2);
        }
        assertThat(Http.metric(server, "durability_dlq_outcomes_total", duplicate))
                .as("the second delivery of the first message, and only it")
                .isEqualTo(duplicates + 1);
        assertThat(tables.deadLetters(where, QUEUE, marker))
                .extracting(ConsumerTables.DeadLetterRow::occurrenceToken)
                .containsExactlyInAnyOrder(
                        OccurrenceToken.malformed(QUEUE, "first-" + marker, notJson),
                        OccurrenceToken.malformed(QUEUE, "second-" + marker, notJson));
    }

    /**
     * A foreign body under the broker's message size limit whose dead-letter wrapper (Base64, 4 bytes for 3)
     * would be over it: sent whole, the broker would close the channel and the message would come back to fail
     * again, forever. It is recorded once, with its first bytes as evidence and flagged truncated. The shared
     * server states the broker's limit as 4 MiB (server.env); the broker is set to it for this test.
     */
    @Test
    void aMessageWhoseDeadLetterWouldExceedTheBrokersSizeLimitIsRecordedOnceWithTruncatedEvidence() throws Exception {
        byte[] noise = new byte[3 * 1024 * 1024 + 512 * 1024];
        new Random().nextBytes(noise);
        String digest =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(noise));
        double deadLettered = Http.metric(server, "durability_inbox_dead_lettered_total", QUEUE_LABEL);
        long limit = Rabbitmq.maxMessageSize();
        Rabbitmq.setMaxMessageSize(4 * 1024 * 1024);
        try (Amqp amqp = new Amqp()) {
            amqp.toQueue(QUEUE, noise);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !tables.deadLetters("original_queue = ? AND position(? in reason) > 0", QUEUE, digest)
                            .isEmpty());
        } finally {
            Rabbitmq.setMaxMessageSize(limit);
        }
        ConsumerTables.DeadLetterRow row = tables.deadLetters(
                        "original_queue = ? AND position(? in reason) > 0", QUEUE, digest)
                .get(0);
        assertThat(row.evidenceTruncated()).isTrue();
        assertThat(row.rawBytes()).isEqualTo(Arrays.copyOf(noise, 65_536));
        assertThat(row.reason())
                .startsWith("evidence truncated: the original of " + noise.length + " bytes (sha-256 " + digest + ")")
                .contains("malformed envelope");
        assertThat(row.path()).isEqualTo("application");
        assertThat(Http.metric(server, "durability_inbox_dead_lettered_total", QUEUE_LABEL))
                .as("dead-lettered once, not redelivered to fail again")
                .isEqualTo(deadLettered + 1);
    }

    /**
     * A retry copy lost on its way back (a classic delay queue dead-letters back at most once: a consumer queue
     * missing at that moment drops it) leaves its inbox row in progress for good. The gauge counts such rows
     * once the whole retry schedule and the grace have passed since the first failure, never a retry still due.
     */
    @Test
    void anEnvelopeStillInProgressLongAfterItsRetriesWereDueIsCountedStale() throws Exception {
        double before = Http.metric(server, "durability_inbox_stale_in_progress", QUEUE_LABEL);
        UUID lost = UUID.randomUUID();
        UUID waiting = UUID.randomUUID();
        tables.seedInProgress(QUEUE, lost, Duration.ofHours(1));
        tables.seedInProgress(QUEUE, waiting, Duration.ofSeconds(5));
        try {
            // The gauge is cached for 5 s.
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> Http.metric(server, "durability_inbox_stale_in_progress", QUEUE_LABEL) == before + 1);
        } finally {
            tables.deleteInbox(QUEUE, lost);
            tables.deleteInbox(QUEUE, waiting);
        }
    }

    @Test
    void aPermanentFailureIsDeadLetteredAtOnceWithTheApplicationToken() throws Exception {
        EventEnvelope broken = EventEnvelope.builder("order.placed", "orders")
                .payload(Json.createObjectBuilder()
                        .add("sku", "lamp")
                        .add("quantity", 1)
                        .build())
                .build();
        try (Amqp amqp = new Amqp()) {
            amqp.publishEvent(broken);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !tables.deadLetters("envelope_id = ?", broken.id()).isEmpty());
        ConsumerTables.InboxRow inbox = tables.inbox(QUEUE, broken.id());
        assertThat(inbox.attempts()).isEqualTo(1);
        assertThat(inbox.processedAt()).isNull();
        assertThat(inbox.deadLetteredAt()).isNotNull();
        assertThat(inbox.lastError()).contains("order.placed has no order_id");
        ConsumerTables.DeadLetterRow row =
                tables.deadLetters("envelope_id = ?", broken.id()).get(0);
        assertThat(row.path()).isEqualTo("application");
        assertThat(row.originalQueue()).isEqualTo(QUEUE);
        assertThat(row.eventType()).isEqualTo("order.placed");
        assertThat(row.reason()).startsWith("permanent failure").contains("order.placed has no order_id");
        long receivedMicros = inbox.receivedAt().toInstant().getEpochSecond() * 1_000_000
                + inbox.receivedAt().toInstant().getNano() / 1_000;
        assertThat(row.occurrenceToken()).isEqualTo("dlxcap:" + broken.id() + ":" + QUEUE + ":" + receivedMicros);
        assertThat(Json.createReader(new java.io.StringReader(row.envelope())).readObject())
                .isEqualTo(Json.createReader(new java.io.StringReader(EnvelopeJson.write(broken)))
                        .readObject());
    }

    static EventEnvelope orderPlaced(UUID orderId) {
        return EventEnvelope.builder("order.placed", "orders")
                .aggregateId(orderId)
                .payload(Json.createObjectBuilder()
                        .add("order_id", orderId.toString())
                        .add("customer", "ada")
                        .add("sku", "lamp")
                        .add("quantity", 1)
                        .build())
                .build();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
