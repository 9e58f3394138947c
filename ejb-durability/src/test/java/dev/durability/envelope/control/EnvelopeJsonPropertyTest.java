package dev.durability.envelope.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The envelope parsers read outside input (a stored row, a message from any producer): whatever the text, they
 * return an envelope or refuse it with {@link InvalidEnvelopeException}, and what the library writes they read back
 * unchanged. Seeds that once failed stay below as examples.
 */
class EnvelopeJsonPropertyTest {

    @Property
    void whatIsWrittenReadsBackEqual(@ForAll("envelopes") EventEnvelope envelope) {
        assertThat(EnvelopeJson.read(EnvelopeJson.write(envelope))).isEqualTo(envelope);
    }

    @Property
    void theStreamingHeaderReaderAgreesWithTheFullReader(@ForAll("envelopes") EventEnvelope envelope) {
        EnvelopeHeaders headers = EnvelopeHeaders.read(EnvelopeJson.write(envelope));
        assertThat(headers.id()).isEqualTo(envelope.id());
        assertThat(headers.eventType()).isEqualTo(envelope.eventType());
        assertThat(headers.sourceService()).isEqualTo(envelope.sourceService());
        assertThat(headers.occurredAt()).isEqualTo(envelope.occurredAt());
        assertThat(headers.schemaVersion()).isEqualTo(envelope.schemaVersion());
        assertThat(headers.correlationId()).isEqualTo(envelope.correlationId());
    }

    @Property(tries = 2000)
    void anyTextIsReadOrRefusedAsAnInvalidEnvelope(@ForAll("hostileTexts") String text) {
        assertReadOrRefused(text);
    }

    @Property(tries = 2000)
    void anObjectWithWrongTypesOrValuesIsReadOrRefusedAsAnInvalidEnvelope(@ForAll("mangledObjects") String text) {
        assertReadOrRefused(text);
    }

    @Example
    void deeplyNestedPayloadIsRefusedNotAStackOverflow() {
        String nested = "[".repeat(100_000) + "]".repeat(100_000);
        assertReadOrRefused("{\"payload\":" + nested + "}");
        assertReadOrRefused(nested);
    }

    @Example
    void emptyAndWhitespaceTextsAreRefused() {
        for (String text : List.of("", " ", "\n", "null", "[]", "\"x\"", "{}", "{\"payload\":{}}")) {
            assertThat(catchThrowable(() -> EnvelopeJson.read(text))).isInstanceOf(InvalidEnvelopeException.class);
        }
    }

    private static void assertReadOrRefused(String text) {
        Throwable full = catchThrowable(() -> EnvelopeJson.read(text));
        assertThat(full)
                .as(text)
                .satisfiesAnyOf(
                        t -> assertThat(t).isNull(), t -> assertThat(t).isInstanceOf(InvalidEnvelopeException.class));
        Throwable headers = catchThrowable(() -> EnvelopeHeaders.read(text));
        assertThat(headers)
                .as(text)
                .satisfiesAnyOf(
                        t -> assertThat(t).isNull(), t -> assertThat(t).isInstanceOf(InvalidEnvelopeException.class));
        if (full == null) {
            assertThat(headers)
                    .as("what the full reader accepts, the header reader accepts: %s", text)
                    .isNull();
        }
    }

    @Provide
    Arbitrary<EventEnvelope> envelopes() {
        Arbitrary<String> segment = Arbitraries.strings()
                .withCharRange('a', 'z')
                .ofMinLength(1)
                .ofMaxLength(8)
                .map(s -> s + "_1".substring(0, s.length() % 2));
        Arbitrary<String> eventType = segment.list().ofMinSize(2).ofMaxSize(4).map(l -> String.join(".", l));
        Arbitrary<String> text = Arbitraries.strings()
                .all()
                .excludeChars('\u0000')
                .ofMinLength(1)
                .ofMaxLength(40)
                .filter(s -> !s.isBlank());
        Arbitrary<Instant> occurred = Arbitraries.longs()
                .between(0, 4_102_444_800_000_000L)
                .map(micros -> Instant.EPOCH.plusNanos(micros * 1000));
        Arbitrary<JsonObject> payload = Arbitraries.maps(
                        Arbitraries.strings().all().excludeChars('\u0000').ofMaxLength(20),
                        Arbitraries.oneOf(
                                text.map(Json::createValue),
                                Arbitraries.integers().map(Json::createValue),
                                Arbitraries.of(true, false)
                                        .map(b -> b ? jakarta.json.JsonValue.TRUE : jakarta.json.JsonValue.FALSE)))
                .ofMaxSize(6)
                .map(map -> {
                    JsonObjectBuilder builder = Json.createObjectBuilder();
                    map.forEach(builder::add);
                    return builder.build();
                });
        return Combinators.combine(
                        eventType,
                        text,
                        Arbitraries.create(UUID::randomUUID).injectNull(0.3),
                        occurred,
                        Arbitraries.integers().between(1, 1000),
                        text,
                        text.injectNull(0.5),
                        payload)
                .as((type, source, aggregate, at, version, correlation, causation, body) -> new EventEnvelope(
                        UUID.randomUUID(), type, source, aggregate, at, version, correlation, causation, body));
    }

    @Provide
    Arbitrary<String> hostileTexts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(200),
                Arbitraries.strings()
                        .withChars("{}[]\":,\\0123456789.-+eEtrufalsn \t\n")
                        .ofMaxLength(200));
    }

    @Provide
    Arbitrary<String> mangledObjects() {
        Arbitrary<String> value = Arbitraries.of(
                "null",
                "true",
                "1",
                "-1",
                "0",
                "1.5",
                "1e400",
                "\"\"",
                "\" \"",
                "\"x\"",
                "{}",
                "[]",
                "\"" + UUID.randomUUID() + "\"",
                "\"2026-01-01T00:00:00Z\"",
                "\"not a time\"",
                "\"order.placed\"",
                "\"ORDER.PLACED\"",
                "\"a\\u0000b\"",
                "99999999999999999999",
                "\"" + "x".repeat(300) + "\"");
        Arbitrary<String> key = Arbitraries.of(
                "id",
                "event_type",
                "source_service",
                "aggregate_id",
                "occurred_at",
                "schema_version",
                "correlation_id",
                "causation_id",
                "payload",
                "other");
        return Combinators.combine(key, value)
                .as((k, v) -> "\"" + k + "\":" + v)
                .list()
                .ofMaxSize(12)
                .map(members -> "{" + String.join(",", members) + "}");
    }
}
