package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.durability.envelope.EventEnvelope;
import jakarta.json.Json;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The service's dead-letter queue consumer on the deployed EAR: every dead letter that reaches the
 * dead-letter exchange, by the broker's path or the application's, becomes one audit row per
 * occurrence; hostile tokens degrade to tokenless rows; a burst of one event type stages one threshold
 * event. Broker-path dead letters come from real queues dead-lettering (TTL, reject, length limit);
 * forged headers stand in for what any publisher to the exchange could send.
 */
class DeadLetterAuditIT {
    private static final String DLX = "durability.dead-letters";
    private final URI server = Coordinates.mainServer();
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    @Test
    void brokerPathDeadLettersAreRecordedWithXDeathTokensAndAReplayIsANewOccurrence() throws Exception {
        String queue = "dlq-it.broker." + Long.toHexString(System.nanoTime());
        EventEnvelope expiring = envelope("stock.expired");
        EventEnvelope rejected = envelope("stock.rejected");
        EventEnvelope overflowing = envelope("stock.overflowed");
        try (Amqp amqp = new Amqp()) {
            Channel channel = amqp.channel();
            declareDeadLettering(channel, queue + ".ttl", Map.of("x-message-ttl", 1));
            declareDeadLettering(channel, queue + ".reject", Map.of());
            declareDeadLettering(channel, queue + ".maxlen", Map.of("x-max-length", 1));
            try {
                amqp.toQueue(queue + ".ttl", Amqp.bytes(expiring));
                amqp.toQueue(queue + ".reject", Amqp.bytes(rejected));
                GetResponse taken = null;
                while (taken == null) {
                    taken = channel.basicGet(queue + ".reject", false);
                }
                channel.basicReject(taken.getEnvelope().getDeliveryTag(), false);
                amqp.toQueue(queue + ".maxlen", Amqp.bytes(overflowing));
                amqp.toQueue(queue + ".maxlen", Amqp.bytes(envelope("stock.kept")));

                await().atMost(Duration.ofSeconds(30))
                        .until(() -> tables.deadLetters(
                                                "envelope_id IN (?, ?, ?)",
                                                expiring.id(),
                                                rejected.id(),
                                                overflowing.id())
                                        .size()
                                == 3);
                assertBrokerRow(expiring, queue + ".ttl", "expired");
                assertBrokerRow(rejected, queue + ".reject", "rejected");
                assertBrokerRow(overflowing, queue + ".maxlen", "maxlen");

                // The same envelope, published again (as a replay does) and dead-lettered again: a new occurrence.
                Thread.sleep(1_100); // x-death times have whole seconds
                amqp.toQueue(queue + ".ttl", Amqp.bytes(expiring));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> tables.deadLetters("envelope_id = ?", expiring.id())
                                        .size()
                                == 2);
                assertThat(tables.deadLetters("envelope_id = ?", expiring.id()))
                        .extracting(ConsumerTables.DeadLetterRow::occurrenceToken)
                        .doesNotHaveDuplicates()
                        .allSatisfy(token -> assertThat(token)
                                .startsWith("xdeath:" + expiring.id() + ":" + queue + ".ttl:expired:1:"));
            } finally {
                for (String suffix : List.of(".ttl", ".reject", ".maxlen")) {
                    channel.queueDelete(queue + suffix);
                }
            }
        }
    }

    private void assertBrokerRow(EventEnvelope envelope, String queue, String reason) throws Exception {
        ConsumerTables.DeadLetterRow row =
                tables.deadLetters("envelope_id = ?", envelope.id()).get(0);
        assertThat(row.path()).isEqualTo("broker");
        assertThat(row.originalQueue()).isEqualTo(queue);
        assertThat(row.eventType()).isEqualTo(envelope.eventType());
        assertThat(row.reason()).contains(reason);
        assertThat(row.occurrenceToken()).startsWith("xdeath:" + envelope.id() + ":" + queue + ":" + reason + ":1:");
        assertThat(row.occurredAt()).isNotNull();
        assertThat(row.xDeath()).contains("\"queue\": \"" + queue + "\"");
        assertThat(Json.createReader(new java.io.StringReader(row.envelope()))
                        .readObject()
                        .getString("id"))
                .isEqualTo(envelope.id().toString());
    }

    @Test
    void theSameDeadLetterDeliveredTwiceIsOneRowAndADivergentClaimIsQuarantined() throws Exception {
        String queue = "dlq-it.twice." + Long.toHexString(System.nanoTime());
        EventEnvelope envelope = envelope("stock.twice");
        Map<String, Object> headers = xDeath(queue, "rejected", 1, Instant.now());
        double duplicatesBefore = Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"duplicate\"");
        try (Amqp amqp = new Amqp()) {
            amqp.publish(DLX, "dlq." + queue, Amqp.persistent(headers).build(), Amqp.bytes(envelope));
            amqp.publish(DLX, "dlq." + queue, Amqp.persistent(headers).build(), Amqp.bytes(envelope));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"duplicate\"")
                                    - duplicatesBefore
                            >= 1);
            assertThat(tables.deadLetters("envelope_id = ?", envelope.id())).hasSize(1);
            // Both deliveries acked: nothing waits in the dead-letter queue (the gauge is cached for 5 s).
            await().atMost(Duration.ofSeconds(30)).until(() -> Http.metric(server, "durability_dlq_depth") == 0.0);

            // Same token (same x-death, same envelope id), different facts: recorded, but tokenless and quarantined.
            EventEnvelope impostor = EventEnvelope.builder("stock.other", "elsewhere")
                    .payload(Json.createObjectBuilder().add("n", 2).build())
                    .build();
            String forged = new String(Amqp.bytes(impostor), StandardCharsets.UTF_8)
                    .replace(impostor.id().toString(), envelope.id().toString());
            amqp.publish(
                    DLX, "dlq." + queue, Amqp.persistent(headers).build(), forged.getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(30))
                    .until(() ->
                            tables.deadLetters("envelope_id = ?", envelope.id()).size() == 2);
        }
        List<ConsumerTables.DeadLetterRow> rows = tables.deadLetters("envelope_id = ?", envelope.id());
        assertThat(rows.get(0).occurrenceToken()).isNotNull();
        assertThat(rows.get(0).quarantined()).isFalse();
        assertThat(rows.get(1).occurrenceToken()).isNull();
        assertThat(rows.get(1).quarantined()).isTrue();
        assertThat(rows.get(1).eventType()).isEqualTo("stock.other");
        assertThat(rows.get(1).reason())
                .contains("divergent claim of occurrence token " + rows.get(0).occurrenceToken());
        assertThat(rows.get(1).divergentOf()).isEqualTo(rows.get(0).id());
    }

    /**
     * A divergent claim of a token is evidence of a divergent copy, not a failure: it neither counts nor raises
     * the threshold event. The threshold fires again once the count fell under it and crosses again.
     */
    @Test
    void aDivergentClaimDoesNotCountAndTheThresholdFiresAgainAfterTheCountFallsAndCrossesAgain() throws Exception {
        String suffix = Long.toHexString(System.nanoTime());
        String type = "diverging.a" + suffix;
        String queue = "dlq-it.diverging." + suffix;
        // Near the window's far edge (an hour by default): these ten leave the window 20 s from now, time
        // enough for the steps until the eleventh crosses the threshold (a few seconds; checked below).
        Instant nearEdge = Instant.now().minus(Duration.ofHours(1)).plusSeconds(20);
        List<EventEnvelope> first = new ArrayList<>();
        try (Amqp amqp = new Amqp()) {
            for (int i = 0; i < 10; i++) {
                first.add(envelope(type));
                deadLetter(amqp, queue, first.get(i), nearEdge);
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.count("dead_letter_audit", "event_type = ?", type) == 10);

            // The same token as the first of them (envelope id, queue, x-death), another payload: divergent.
            EventEnvelope impostor = EventEnvelope.builder(type, "elsewhere")
                    .payload(Json.createObjectBuilder().add("n", 2).build())
                    .build();
            String forged = new String(Amqp.bytes(impostor), StandardCharsets.UTF_8)
                    .replace(impostor.id().toString(), first.get(0).id().toString());
            amqp.publish(
                    DLX,
                    "dlq." + queue,
                    Amqp.persistent(xDeath(queue, "rejected", 1, nearEdge)).build(),
                    forged.getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.count("dead_letter_audit", "event_type = ? AND divergent_of IS NOT NULL", type)
                            == 1);
            assertThat(thresholdEvents(type))
                    .as("a divergent copy raises nothing")
                    .isZero();

            deadLetter(amqp, queue, envelope(type), Instant.now());
            await().atMost(Duration.ofSeconds(30)).until(() -> thresholdEvents(type) == 1);
            assertThat(thresholdEventsCounting(type, 11))
                    .as("the eleventh real dead letter crossed, the divergent copy not counted")
                    .isEqualTo(1);
            assertThat(Instant.now())
                    .as("the first ten were still in the window when the eleventh crossed (else this run proves"
                            + " nothing: raise the margin above)")
                    .isBefore(nearEdge.plus(Duration.ofHours(1)));

            // The first ten leave the window: one real dead letter is left in it. Nine more stay under the
            // threshold; the tenth of them crosses it again.
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> Instant.now()
                            .isAfter(nearEdge.plus(Duration.ofHours(1)).plusSeconds(2)));
            for (int i = 0; i < 9; i++) {
                deadLetter(amqp, queue, envelope(type), Instant.now());
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.count("dead_letter_audit", "event_type = ?", type) == 21);
            assertThat(thresholdEvents(type)).isEqualTo(1);
            deadLetter(amqp, queue, envelope(type), Instant.now());
            await().atMost(Duration.ofSeconds(30)).until(() -> thresholdEvents(type) == 2);
        }
        assertThat(thresholdEventsCounting(type, 11)).isEqualTo(2);
    }

    private long thresholdEventsCounting(String eventType, int deadLettersInWindow) throws Exception {
        return outbox.count(
                "event_type = 'dlq.threshold_exceeded' AND envelope->'payload'->>'event_type' = ? "
                        + "AND (envelope->'payload'->>'dead_letters_in_window')::int = ?",
                eventType,
                deadLettersInWindow);
    }

    @Test
    void contentTheDatabaseRefusesIsRecordedQuarantinedAsRawBytes() throws Exception {
        String queue = "dlq-it.refused." + Long.toHexString(System.nanoTime());
        // Valid JSON to a parser, refused by jsonb: a lone surrogate escape.
        byte[] body = ("{\"marker\":\"" + queue + "\",\"text\":\"\\ud800\"}").getBytes(StandardCharsets.UTF_8);
        try (Amqp amqp = new Amqp()) {
            amqp.publish(
                    DLX,
                    "dlq." + queue,
                    Amqp.persistent(xDeath(queue, "rejected", 1, Instant.now())).build(),
                    body);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !tables.deadLetters("original_queue = ?", queue).isEmpty());
        ConsumerTables.DeadLetterRow row =
                tables.deadLetters("original_queue = ?", queue).get(0);
        assertThat(row.quarantined()).isTrue();
        assertThat(row.occurrenceToken()).isNull();
        assertThat(row.envelope()).isNull();
        assertThat(row.rawBytes()).isEqualTo(body);
        assertThat(row.reason()).startsWith("quarantined: the database refused it as received");
    }

    @Test
    void aDeletedDeadLetterQueueIsDeclaredAndConsumedAgainAtOnce() throws Exception {
        String queue = "dlq-it.cancelled." + Long.toHexString(System.nanoTime());
        EventEnvelope envelope = envelope("stock.cancelled");
        try (Amqp amqp = new Amqp()) {
            // The broker cancels the consumer of a deleted queue; the supervisor must notice and start over.
            amqp.channel().queueDelete("orders.dead-letters");
            await().atMost(Duration.ofSeconds(4))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> {
                        try (Amqp probe = new Amqp()) {
                            return probe.channel()
                                            .queueDeclarePassive("orders.dead-letters")
                                            .getConsumerCount()
                                    >= 1;
                        }
                    });
            amqp.publish(
                    DLX,
                    "dlq." + queue,
                    Amqp.persistent(xDeath(queue, "rejected", 1, Instant.now())).build(),
                    Amqp.bytes(envelope));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        tables.deadLetters("envelope_id = ?", envelope.id()).size() == 1);
    }

    @Test
    void hostileTokensDegradeToTokenlessRows() throws Exception {
        String queue = "dlq-it.hostile." + Long.toHexString(System.nanoTime());
        List<String> tokens = List.of(
                "dlxcap:\u00e9t\u00e9:" + queue + ":1",
                "dlxcap:" + "x".repeat(10_000),
                "surprise:" + UUID.randomUUID(),
                "dlxcap:" + UUID.randomUUID() + ":" + queue + ":123\u0000");
        List<EventEnvelope> envelopes =
                tokens.stream().map(t -> envelope("stock.hostile")).toList();
        try (Amqp amqp = new Amqp()) {
            for (int i = 0; i < tokens.size(); i++) {
                String wrapper = Json.createObjectBuilder()
                        .add("wrapper_version", 1)
                        .add("reason", "hostile")
                        .add("consumer_queue", queue)
                        .add("attempts", 1)
                        .add("dead_lettered_at", Instant.now().toString())
                        .add("occurrence_token", tokens.get(i))
                        .add(
                                "envelope",
                                Json.createReader(new java.io.StringReader(
                                                new String(Amqp.bytes(envelopes.get(i)), StandardCharsets.UTF_8)))
                                        .readObject())
                        .build()
                        .toString();
                amqp.publish(
                        DLX,
                        "dlq." + queue,
                        Amqp.persistent(Map.of("x-durability-dead-letter", 1)).build(),
                        wrapper.getBytes(StandardCharsets.UTF_8));
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> tables.deadLetters("original_queue = ?", queue).size() == tokens.size());
        assertThat(tables.deadLetters("original_queue = ?", queue)).allSatisfy(row -> {
            assertThat(row.occurrenceToken()).isNull();
            assertThat(row.path()).isEqualTo("application");
            assertThat(row.reason()).isEqualTo("hostile");
        });
    }

    @Test
    void elevenDeadLettersOfOneTypeInsideTheWindowStageExactlyOneThresholdEvent() throws Exception {
        String suffix = Long.toHexString(System.nanoTime());
        String bursting = "burst.a" + suffix;
        String other = "burst.b" + suffix;
        String queue = "dlq-it.burst." + suffix;
        try (Amqp amqp = new Amqp()) {
            // Outside the window (an hour by default): counted nowhere.
            for (int i = 0; i < 5; i++) {
                deadLetter(amqp, queue, envelope(bursting), Instant.now().minus(Duration.ofHours(2)));
            }
            for (int i = 0; i < 10; i++) {
                deadLetter(amqp, queue, envelope(bursting), Instant.now());
                deadLetter(amqp, queue, envelope(other), Instant.now());
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.count("dead_letter_audit", "event_type = ?", bursting) == 15);
            assertThat(thresholdEvents(bursting)).isZero();

            deadLetter(amqp, queue, envelope(bursting), Instant.now());
            await().atMost(Duration.ofSeconds(30)).until(() -> thresholdEvents(bursting) == 1);
            deadLetter(amqp, queue, envelope(bursting), Instant.now());
            deadLetter(amqp, queue, envelope(bursting), Instant.now());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.count("dead_letter_audit", "event_type = ?", bursting) == 18);
        }
        assertThat(thresholdEvents(bursting)).isEqualTo(1);
        assertThat(thresholdEvents(other)).isZero();
        assertThat(outbox.count(
                        "event_type = 'dlq.threshold_exceeded' AND envelope->'payload'->>'event_type' = ? "
                                + "AND (envelope->'payload'->>'dead_letters_in_window')::int = 11",
                        bursting))
                .isEqualTo(1);
    }

    private long thresholdEvents(String eventType) throws Exception {
        return outbox.count(
                "event_type = 'dlq.threshold_exceeded' AND envelope->'payload'->>'event_type' = ?", eventType);
    }

    /** A broker-path dead letter as RabbitMQ would deliver it from {@code queue}, dead-lettered at {@code time}. */
    private static void deadLetter(Amqp amqp, String queue, EventEnvelope envelope, Instant time) throws Exception {
        amqp.publish(
                DLX,
                "dlq." + queue,
                Amqp.persistent(xDeath(queue, "rejected", 1, time))
                        .messageId(envelope.id().toString())
                        .type(envelope.eventType())
                        .build(),
                Amqp.bytes(envelope));
    }

    private static Map<String, Object> xDeath(String queue, String reason, long count, Instant time) {
        Map<String, Object> entry = new HashMap<>();
        entry.put("queue", queue);
        entry.put("reason", reason);
        entry.put("count", count);
        entry.put("time", Date.from(time));
        entry.put("exchange", "");
        entry.put("routing-keys", List.of(queue));
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(entry));
        return headers;
    }

    private static void declareDeadLettering(Channel channel, String queue, Map<String, Object> extra)
            throws Exception {
        Map<String, Object> arguments = new HashMap<>(extra);
        arguments.put("x-dead-letter-exchange", DLX);
        arguments.put("x-dead-letter-routing-key", "dlq." + queue);
        arguments.put("x-expires", 600_000);
        channel.queueDeclare(queue, true, false, false, arguments);
    }

    private static EventEnvelope envelope(String eventType) {
        return EventEnvelope.builder(eventType, "stock")
                .aggregateId(UUID.randomUUID())
                .payload(Json.createObjectBuilder().add("n", 1).build())
                .build();
    }
}
