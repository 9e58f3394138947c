package dev.durability.deadletter.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.durability.envelope.control.CloudEventJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IncomingDeadLetterTest {
    private static final UUID ID = UUID.fromString("01a23ac0-abbf-7f1a-ae43-afbdffe6271b");
    private static final Instant TIME = Instant.parse("2026-12-03T07:00:00Z");
    private static final String ENVELOPE = "{\"id\":\"" + ID + "\",\"event_type\":\"order.placed\","
            + "\"source_service\":\"orders\",\"aggregate_id\":null,\"occurred_at\":\"2026-12-03T06:59:59Z\","
            + "\"schema_version\":1,\"correlation_id\":\"c\",\"causation_id\":null,\"payload\":{}}";

    @Test
    void theLatestXDeathEntryOfTheDeadLetteringQueueGivesTheBrokerToken() {
        IncomingDeadLetter letter = read("dlq.shipments", xDeath("shipments", "rejected", 1), ENVELOPE);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.BROKER);
        assertThat(letter.envelopeId()).isEqualTo(ID);
        assertThat(letter.eventType()).isEqualTo("order.placed");
        assertThat(letter.originalQueue()).isEqualTo("shipments");
        assertThat(letter.occurrenceToken())
                .isEqualTo("xdeath:" + ID + ":shipments:rejected:1:" + TIME.getEpochSecond());
        assertThat(letter.occurredAt()).isEqualTo(TIME);
        assertThat(letter.content().json()).isEqualTo(ENVELOPE);
    }

    @Test
    void occurredAtIsTrustedOnlyForAFirstDeath() {
        assertThat(read("dlq.shipments", xDeath("shipments", "expired", 3), ENVELOPE)
                        .occurredAt())
                .isNull();
    }

    @Test
    void aLatestEntryNamingAnotherQueueRecordsTokenless() {
        IncomingDeadLetter letter = read("dlq.shipments", xDeath("shipments.retry.1000ms", "expired", 1), ENVELOPE);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.BROKER);
        assertThat(letter.occurrenceToken()).isNull();
    }

    @Test
    void aValidXDeathOutranksTheApplicationWrapper() {
        Map<String, Object> headers = new HashMap<>(xDeath("shipments", "rejected", 1));
        headers.put(DeadLetterWrapper.HEADER, 1);
        assertThat(read("dlq.shipments", headers, wrapper("dlxcap:" + ID + ":shipments:123"))
                        .path())
                .isEqualTo(IncomingDeadLetter.Path.BROKER);
    }

    @Test
    void theApplicationWrapperGivesItsTokenWhenItNamesItsOwnEnvelopeAndQueue() {
        IncomingDeadLetter letter =
                read("dlq.shipments", Map.of(DeadLetterWrapper.HEADER, 1), wrapper("dlxcap:" + ID + ":shipments:123"));
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.APPLICATION);
        assertThat(letter.occurrenceToken()).isEqualTo("dlxcap:" + ID + ":shipments:123");
        assertThat(letter.reason()).isEqualTo("retries exhausted");
        assertThat(letter.envelopeId()).isEqualTo(ID);
    }

    /** The audit keeps a dead-lettered CloudEvent's facts as the consumer mapped them, so its token still matches. */
    @Test
    void aWrappedCloudEventGivesTheEnvelopeIdTheConsumerMappedItTo() {
        String event = "{\"specversion\":\"1.0\",\"id\":\"A-1\",\"source\":\"https://shop.example.com\","
                + "\"type\":\"order.placed\",\"data\":{\"quantity\":0}}";
        UUID mapped = CloudEventJson.envelopeId("https://shop.example.com", "A-1");
        String token = "dlxcap:" + mapped + ":shipments:123";
        String wrapper = new String(
                new DeadLetterWrapper(
                                "permanent failure", "shipments", null, token, TIME, 1, MessageContent.of(bytes(event)))
                        .toJson(),
                StandardCharsets.UTF_8);
        IncomingDeadLetter letter = read("dlq.shipments", Map.of(DeadLetterWrapper.HEADER, 1), wrapper);
        assertThat(letter.envelopeId()).isEqualTo(mapped);
        assertThat(letter.eventType()).isEqualTo("order.placed");
        assertThat(letter.sourceService()).isEqualTo("https://shop.example.com");
        assertThat(letter.occurrenceToken()).isEqualTo(token);
        assertThat(letter.content().json()).isEqualTo(event);
    }

    @Test
    void hostileOrForeignTokensAreDropped() {
        for (String token : List.of(
                "dlxcap:" + UUID.randomUUID() + ":shipments:123",
                "dlxcap:" + ID + ":elsewhere:123",
                "dlxcap:" + ID + ":shipments:12a",
                "dlxcap:" + ID + ":shipments:" + "1".repeat(300),
                "xdeath:" + ID + ":shipments:x",
                "dlxcap:" + ID + ":shipments:\u00e9")) {
            assertThat(read("dlq.shipments", Map.of(DeadLetterWrapper.HEADER, 1), wrapper(token))
                            .occurrenceToken())
                    .as(token)
                    .isNull();
        }
    }

    /** A malformed message's redelivery after a lost ack is the same occurrence: its wrapper gives the same token. */
    @Test
    void aMalformedMessageGivesOneTokenPerMessageAndQueue() {
        byte[] body = bytes("{not json");
        String token = OccurrenceToken.malformed("shipments", "m-1", body);
        assertThat(token).isEqualTo(OccurrenceToken.malformed("shipments", "m-1", bytes("{not json")));
        assertThat(List.of(
                        OccurrenceToken.malformed("shipments", "m-2", body),
                        OccurrenceToken.malformed("shipments", null, body),
                        OccurrenceToken.malformed("invoices", "m-1", body),
                        OccurrenceToken.malformed("shipments", "m-1", bytes("{not json!")),
                        // The parts are framed: moving bytes from the queue name into the message id changes it.
                        OccurrenceToken.malformed("shipment", "sm-1", body)))
                .doesNotContain(token)
                .doesNotHaveDuplicates();
        String wrapper = new String(
                new DeadLetterWrapper(
                                "malformed envelope: not JSON",
                                "shipments",
                                null,
                                token,
                                TIME,
                                0,
                                MessageContent.of(body))
                        .toJson(),
                StandardCharsets.UTF_8);
        IncomingDeadLetter letter = read("dlq.shipments", Map.of(DeadLetterWrapper.HEADER, 1), wrapper);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.APPLICATION);
        assertThat(letter.occurrenceToken()).isEqualTo(token);
        assertThat(letter.content().raw()).isEqualTo(body);
    }

    @Test
    void aMalformedTokenThatIsNoDigestIsDropped() {
        for (String token :
                List.of("malformed:", "malformed:" + "a".repeat(63), "malformed:" + "A".repeat(64), "malformed:x")) {
            assertThat(read("dlq.shipments", Map.of(DeadLetterWrapper.HEADER, 1), wrapper(token))
                            .occurrenceToken())
                    .as(token)
                    .isNull();
        }
    }

    @Test
    void bytesThatAreNotJsonAreKeptRawAndAnUnknownDeadLetterIsStillRead() {
        byte[] noise = {(byte) 0xC3, (byte) 0x28, 0, 1, 2};
        IncomingDeadLetter letter = IncomingDeadLetter.read("dlq.x", new AMQP.BasicProperties.Builder().build(), noise);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.UNKNOWN);
        assertThat(letter.content().raw()).isEqualTo(noise);
        assertThat(letter.content().json()).isNull();
        assertThat(letter.occurrenceToken()).isNull();
        assertThat(letter.originalQueue()).isEqualTo("x");
    }

    @Test
    void aMalformedXDeathHeaderIsNoXDeath() {
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(Map.of("queue", "shipments", "count", "many")));
        IncomingDeadLetter letter = read("dlq.shipments", headers, ENVELOPE);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.UNKNOWN);
        assertThat(letter.xDeathJson()).contains("\"count\":\"many\"");
    }

    @Test
    void numbersJsonCannotHoldAndTimesPostgresqlCannotStoreAreKeptAsEvidenceOnly() {
        Map<String, Object> entry = new HashMap<>();
        entry.put("queue", "shipments");
        entry.put("reason", "rejected");
        entry.put("count", 1L);
        entry.put("time", Date.from(Instant.parse("+300000-01-01T00:00:00Z")));
        entry.put("weight", Double.NaN);
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(entry));
        IncomingDeadLetter letter = read("dlq.shipments", headers, ENVELOPE);
        assertThat(letter.path()).isEqualTo(IncomingDeadLetter.Path.BROKER);
        assertThat(letter.occurredAt()).as("beyond PostgreSQL's range").isNull();
        assertThat(letter.xDeathJson()).contains("\"weight\":\"NaN\"");
        IncomingDeadLetter quarantined = letter.quarantined("refused");
        assertThat(quarantined.xDeathJson()).isNull();
        assertThat(quarantined.occurredAt()).isNull();
        assertThat(quarantined.occurrenceToken()).isNull();
        assertThat(quarantined.content().raw()).isEqualTo(bytes(ENVELOPE));
    }

    @Test
    void nulCharactersInHeaderTextNeverReachTheDatabase() {
        Map<String, Object> headers = xDeath("ship\u0000ments", "rejected", 1);
        IncomingDeadLetter letter = read("dlq.ship\u0000ments", headers, ENVELOPE);
        assertThat(letter.originalQueue()).doesNotContain("\u0000");
        assertThat(letter.xDeathJson()).doesNotContain("\u0000");
    }

    @Test
    void theWrapperRoundTripsJsonAndRawOriginals() {
        DeadLetterWrapper json = new DeadLetterWrapper(
                "why", "q", "orders", "dlxcap:" + ID + ":q:1", TIME, 2, MessageContent.of(bytes(ENVELOPE)));
        DeadLetterWrapper back = DeadLetterWrapper.read(json.toJson()).orElseThrow();
        assertThat(back.original().envelopeId()).isEqualTo(ID);
        assertThat(back.occurrenceToken()).isEqualTo("dlxcap:" + ID + ":q:1");
        assertThat(back.deadLetteredAt()).isEqualTo(TIME);

        byte[] noise = {(byte) 0xFF, 0, 42};
        DeadLetterWrapper raw = new DeadLetterWrapper("why", "q", null, null, TIME, 0, MessageContent.of(noise));
        assertThat(DeadLetterWrapper.read(raw.toJson()).orElseThrow().original().raw())
                .isEqualTo(noise);
    }

    @Test
    void aWrapperOverTheSizeLimitKeepsTheFirstBytesTheEnvelopesFactsAndItsTokenFlaggedTruncated() {
        // An envelope whose payload is 200 KiB of text: its wrapper is over a limit of 128 KiB.
        String big = ENVELOPE.replace("\"payload\":{}", "\"payload\":{\"text\":\"" + "x".repeat(200 * 1024) + "\"}");
        DeadLetterWrapper whole = new DeadLetterWrapper(
                "why", "shipments", "orders", "dlxcap:" + ID + ":shipments:1", TIME, 5, MessageContent.of(bytes(big)));
        byte[] json = whole.toJson();
        assertThat(whole.within(json.length, json.length)).isSameAs(whole);

        DeadLetterWrapper truncated = whole.within(128 * 1024, json.length);
        byte[] sent = truncated.toJson();
        assertThat(sent.length).isLessThanOrEqualTo(128 * 1024);
        Map<String, Object> headers = new HashMap<>();
        headers.put(DeadLetterWrapper.HEADER, DeadLetterWrapper.VERSION);
        IncomingDeadLetter letter = IncomingDeadLetter.read(
                "dlq.shipments",
                new AMQP.BasicProperties.Builder().headers(headers).build(),
                sent);
        assertThat(letter.evidenceTruncated()).isTrue();
        assertThat(letter.content().raw()).isEqualTo(java.util.Arrays.copyOf(bytes(big), 64 * 1024));
        assertThat(letter.envelopeId()).isEqualTo(ID);
        assertThat(letter.eventType()).isEqualTo("order.placed");
        assertThat(letter.occurrenceToken()).isEqualTo("dlxcap:" + ID + ":shipments:1");
        assertThat(letter.reason())
                .startsWith("evidence truncated: the original of " + bytes(big).length + " bytes (sha-256 ")
                .endsWith("; why");
    }

    private static IncomingDeadLetter read(String routingKey, Map<String, Object> headers, String body) {
        return IncomingDeadLetter.read(
                routingKey, new AMQP.BasicProperties.Builder().headers(headers).build(), bytes(body));
    }

    private static String wrapper(String token) {
        return new String(
                new DeadLetterWrapper(
                                "retries exhausted",
                                "shipments",
                                "orders",
                                token,
                                TIME,
                                5,
                                MessageContent.of(bytes(ENVELOPE)))
                        .toJson(),
                StandardCharsets.UTF_8);
    }

    private static Map<String, Object> xDeath(String queue, String reason, long count) {
        Map<String, Object> entry = new HashMap<>();
        entry.put("queue", LongStringHelper.asLongString(queue));
        entry.put("reason", LongStringHelper.asLongString(reason));
        entry.put("count", count);
        entry.put("time", Date.from(TIME));
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(entry));
        return headers;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
