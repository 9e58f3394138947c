package dev.durability.envelope.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.Json;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EnvelopeHeadersTest {

    @Test
    void readsTheHeaderFieldsOfAStoredEnvelopeWhereverThePayloadStands() {
        EventEnvelope envelope = EventEnvelope.builder("order.placed", "orders")
                .correlationId("c-1")
                .payload(Json.createObjectBuilder()
                        .add("id", "not the envelope's")
                        .add(
                                "items",
                                Json.createArrayBuilder()
                                        .add(Json.createObjectBuilder().add("event_type", "x")))
                        .build())
                .build();
        // PostgreSQL's jsonb text puts shorter keys first: the payload comes before most header fields.
        String stored = "{\"id\": \"" + envelope.id() + "\", \"payload\": {\"id\": \"not the envelope's\", \"items\": "
                + "[{\"event_type\": \"x\"}]}, \"event_type\": \"order.placed\", \"occurred_at\": \""
                + envelope.occurredAt() + "\", \"aggregate_id\": null, \"causation_id\": null, \"correlation_id\": "
                + "\"c-1\", \"schema_version\": 1, \"source_service\": \"orders\"}";
        EnvelopeHeaders headers = EnvelopeHeaders.read(stored);
        assertThat(headers)
                .isEqualTo(new EnvelopeHeaders(
                        envelope.id(), "order.placed", "orders", envelope.occurredAt(), 1, "c-1", null, null));
        assertThat(EnvelopeHeaders.read(EnvelopeJson.write(envelope)).id()).isEqualTo(envelope.id());
    }

    @Test
    void aMalformedHeaderFieldIsNamed() {
        String valid = EnvelopeJson.write(
                EventEnvelope.builder("order.placed", "orders").build());
        assertThatThrownBy(() -> EnvelopeHeaders.read(
                        valid.replaceFirst("\"occurred_at\":\"[^\"]+\"", "\"occurred_at\":\"yesterday\"")))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("occurred_at");
        assertThatThrownBy(() ->
                        EnvelopeHeaders.read(valid.replace("\"source_service\":\"orders\"", "\"source_service\":null")))
                .hasMessageContaining("source_service");
        assertThatThrownBy(() -> EnvelopeHeaders.read("[1, 2]")).isInstanceOf(InvalidEnvelopeException.class);
        assertThatThrownBy(() -> EnvelopeHeaders.read("{\"id\": "))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("not valid JSON");
    }

    @Test
    void theTimestampKeepsItsInstant() {
        Instant at = Instant.parse("2026-12-03T10:15:30.123Z");
        EventEnvelope envelope =
                EventEnvelope.builder("order.placed", "orders").occurredAt(at).build();
        assertThat(EnvelopeHeaders.read(EnvelopeJson.write(envelope)).occurredAt())
                .isEqualTo(at);
    }
}
