package dev.durability.envelope.control;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * The JSON form of envelopes. The envelope's nine fields are written and read field by field with
 * JSON-P, so absent values are explicit {@code null}s and every malformed field is named in the error;
 * producers' payload objects are turned into JSON with JSON-B.
 */
public final class EnvelopeJson {
    /**
     * One JSON-P provider for the library: {@code Json.createReader} and its kin look the provider up
     * through the service loader on every call, a cost every staged and consumed event would pay.
     */
    public static final JsonProvider PROVIDER = JsonProvider.provider();

    private static final Jsonb JSONB = JsonbBuilder.create();

    private EnvelopeJson() {}

    public static String write(EventEnvelope envelope) {
        JsonObjectBuilder json = PROVIDER.createObjectBuilder()
                .add("id", envelope.id().toString())
                .add("event_type", envelope.eventType())
                .add("source_service", envelope.sourceService());
        nullable(
                json,
                "aggregate_id",
                envelope.aggregateId() == null ? null : envelope.aggregateId().toString());
        json.add("occurred_at", envelope.occurredAt().toString())
                .add("schema_version", envelope.schemaVersion())
                .add("correlation_id", envelope.correlationId());
        nullable(json, "causation_id", envelope.causationId());
        return json.add("payload", envelope.payload()).build().toString();
    }

    /** Reads and validates an envelope; anything malformed is an {@link InvalidEnvelopeException} naming the field. */
    public static EventEnvelope read(String text) {
        return read(parse(text));
    }

    /** A JSON object, or an {@link InvalidEnvelopeException} saying why the text is none. */
    static JsonObject parse(String text) {
        try {
            JsonValue value = PROVIDER.createReader(new StringReader(text)).readValue();
            if (value.getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidEnvelopeException("envelope must be a JSON object, was " + value.getValueType());
            }
            return value.asJsonObject();
        } catch (InvalidEnvelopeException e) {
            throw e;
        } catch (JsonException | IllegalStateException e) {
            throw new InvalidEnvelopeException("envelope is not valid JSON: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Parsson refuses nesting deeper than 1,000 with a bare RuntimeException (found by
            // EnvelopeJsonPropertyTest): outside input, so an invalid envelope like any other.
            throw new InvalidEnvelopeException("envelope is not readable JSON: " + e.getMessage(), e);
        }
    }

    /** The envelope in a parsed JSON object of its own form. */
    static EventEnvelope read(JsonObject json) {
        JsonValue payload = json.get("payload");
        if (payload == null || payload.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new InvalidEnvelopeException("payload must be a JSON object");
        }
        return new EventEnvelope(
                uuid(json, "id"),
                text(json, "event_type"),
                text(json, "source_service"),
                uuid(json, "aggregate_id"),
                instant(json, "occurred_at"),
                schemaVersion(json),
                text(json, "correlation_id"),
                text(json, "causation_id"),
                payload.asJsonObject());
    }

    /** A payload object of the producer's own type, turned into the JSON object the envelope carries. */
    public static JsonObject toJsonObject(Object payload) {
        if (payload instanceof JsonObject json) {
            return json;
        }
        String json;
        try {
            json = JSONB.toJson(payload);
        } catch (JsonbException e) {
            throw new InvalidEnvelopeException("payload cannot be written as JSON: " + e.getMessage(), e);
        }
        JsonValue value = PROVIDER.createReader(new StringReader(json)).readValue();
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new InvalidEnvelopeException("payload must serialize to a JSON object, was: " + json);
        }
        return value.asJsonObject();
    }

    private static void nullable(JsonObjectBuilder json, String name, String value) {
        if (value == null) {
            json.addNull(name);
        } else {
            json.add(name, value);
        }
    }

    private static int schemaVersion(JsonObject json) {
        JsonValue version = json.get("schema_version");
        try {
            if (version instanceof JsonNumber number) {
                return number.intValueExact();
            }
        } catch (ArithmeticException e) {
            // falls through to the error below
        }
        throw new InvalidEnvelopeException("schema_version must be an integer, was " + version);
    }

    /** A string member, null when absent or null; any other kind is an {@link InvalidEnvelopeException}. */
    static String text(JsonObject json, String name) {
        JsonValue value = json.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonString string)) {
            throw new InvalidEnvelopeException(name + " must be a string");
        }
        return string.getString();
    }

    private static UUID uuid(JsonObject json, String name) {
        String value = text(json, name);
        try {
            return value == null ? null : UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidEnvelopeException(name + " must be a UUID, was '" + value + "'", e);
        }
    }

    private static Instant instant(JsonObject json, String name) {
        String value = text(json, name);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidEnvelopeException(name + " must be an RFC 3339 UTC time, was '" + value + "'", e);
        }
    }
}
