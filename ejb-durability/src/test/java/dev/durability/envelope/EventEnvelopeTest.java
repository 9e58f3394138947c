package dev.durability.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventEnvelopeTest {

    public record Placed(String sku) {}

    @Test
    void builderFillsIdTimeCorrelationAndVersion() {
        EventEnvelope envelope = EventEnvelope.builder("order.placed", "orders").build();
        assertThat(envelope.id().version()).isEqualTo(7);
        assertThat(envelope.correlationId()).isEqualTo(envelope.id().toString());
        assertThat(envelope.schemaVersion()).isEqualTo(1);
        assertThat(envelope.occurredAt()).isBeforeOrEqualTo(Instant.now());
        assertThat(envelope.payload()).isEmpty();
    }

    @Test
    void jsonUsesTheSpecFieldNamesAndKeepsNulls() {
        UUID aggregate = UUID.randomUUID();
        EventEnvelope envelope = EventEnvelope.builder("order.placed", "orders")
                .aggregateId(aggregate)
                .occurredAt(Instant.parse("2026-12-02T10:15:30.123Z"))
                .payload(Json.createObjectBuilder().add("sku", "book-1").build())
                .build();
        JsonObject json = Json.createReader(new StringReader(EnvelopeJson.write(envelope)))
                .readObject();
        assertThat(json.keySet())
                .containsExactlyInAnyOrder(
                        "id",
                        "event_type",
                        "source_service",
                        "aggregate_id",
                        "occurred_at",
                        "schema_version",
                        "correlation_id",
                        "causation_id",
                        "payload");
        assertThat(json.getString("occurred_at")).isEqualTo("2026-12-02T10:15:30.123Z");
        assertThat(json.getString("aggregate_id")).isEqualTo(aggregate.toString());
        assertThat(json.isNull("causation_id")).isTrue();
        assertThat(json.getJsonObject("payload").getString("sku")).isEqualTo("book-1");
    }

    @Test
    void jsonRoundTripsToAnEqualEnvelope() {
        EventEnvelope envelope = EventEnvelope.builder("shipment.created", "shipments")
                .causationId("01a2-cause")
                .payload(Json.createObjectBuilder().add("n", 1).build())
                .build();
        assertThat(EnvelopeJson.read(EnvelopeJson.write(envelope))).isEqualTo(envelope);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "order",
                "Order.Placed",
                "order..placed",
                "order.placed.",
                "1order.placed",
                "order placed",
                "order.placed!"
            })
    void eventTypesMustBeDottedLowerCase(String eventType) {
        assertThatThrownBy(() -> EventEnvelope.builder(eventType, "orders").build())
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("event_type");
    }

    @Test
    void sourceServiceIsRequired() {
        assertThatThrownBy(() -> EventEnvelope.builder("order.placed", " ").build())
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("source_service");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "not json | not valid JSON",
                "[] | must be a JSON object",
                "{} | payload",
                "{\"payload\":{},\"schema_version\":1,\"id\":\"x\"} | id must be a UUID",
                "{\"payload\":{},\"schema_version\":1.5} | schema_version",
                "{\"id\":\"01a23863-caa9-75ec-bf5a-8a6465c3367d\",\"event_type\":\"Bad\",\"source_service\":\"s\",\"occurred_at\":\"2026-12-02T10:15:30Z\",\"schema_version\":1,\"correlation_id\":\"c\",\"payload\":{}} | event_type",
                "{\"id\":\"01a23863-caa9-75ec-bf5a-8a6465c3367d\",\"event_type\":\"a.b\",\"source_service\":\"s\",\"occurred_at\":\"yesterday\",\"schema_version\":1,\"correlation_id\":\"c\",\"payload\":{}} | occurred_at"
            })
    void malformedEnvelopesAreRefusedNamingTheField(String json, String named) {
        assertThatThrownBy(() -> EnvelopeJson.read(json))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining(named.trim());
    }

    @Test
    void amqpShortStringsAreLimitedInBytesNotCharacters() {
        String twoHundredUmlauts = "\u00fc".repeat(200);
        assertThatThrownBy(() -> EventEnvelope.builder("order.placed", "orders")
                        .correlationId(twoHundredUmlauts)
                        .build())
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("correlation_id");
        assertThatThrownBy(() ->
                        EventEnvelope.builder("order.placed", twoHundredUmlauts).build())
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("source_service");
    }

    @Test
    void payloadMustBeAnObject() {
        assertThatThrownBy(() -> EnvelopeJson.toJsonObject(42)).isInstanceOf(InvalidEnvelopeException.class);
        assertThat(EnvelopeJson.toJsonObject(new Placed("a")).getString("sku")).isEqualTo("a");
    }

    @Test
    void idsAreTimeOrderedVersion7() {
        UUID previous = EventEnvelope.builder("order.placed", "orders").build().id();
        for (int i = 0; i < 10_000; i++) {
            UUID next = EventEnvelope.builder("order.placed", "orders").build().id();
            assertThat(next.version()).isEqualTo(7);
            assertThat(next.toString()).isGreaterThan(previous.toString());
            previous = next;
        }
    }

    @Test
    void aNulCharacterAnywhereIsRefusedBecauseJsonbCannotStoreIt() {
        assertThatThrownBy(() -> EventEnvelope.builder("order.placed", "orders")
                        .payload(Json.createObjectBuilder()
                                .add(
                                        "lines",
                                        Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("note", "a\u0000b")))
                                .build())
                        .build())
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> EventEnvelope.builder("order.placed", "orders")
                        .payload(Json.createObjectBuilder().add("k\u0000", 1).build())
                        .build())
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> EventEnvelope.builder("order.placed", "orders")
                        .correlationId("c\u0000")
                        .build())
                .hasMessageContaining("NUL");
    }
}
