package dev.durability.envelope.control;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.JsonException;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * The envelope fields that travel as AMQP properties, read from a stored envelope with a streaming
 * parser that skips the payload: publishing never builds a tree of a payload (a megabyte of small
 * objects would take tens of megabytes of heap as a tree), it sends the stored text as it is.
 */
public record EnvelopeHeaders(
        UUID id,
        String eventType,
        String sourceService,
        Instant occurredAt,
        int schemaVersion,
        String correlationId,
        String aggregateId,
        String causationId) {

    /** Reads the header fields; a missing or malformed one is an {@link InvalidEnvelopeException} naming it. */
    public static EnvelopeHeaders read(String envelopeJson) {
        String id = null;
        String eventType = null;
        String sourceService = null;
        String occurredAt = null;
        Integer schemaVersion = null;
        String correlationId = null;
        String aggregateId = null;
        String causationId = null;
        try (JsonParser parser = EnvelopeJson.PROVIDER.createParser(new StringReader(envelopeJson))) {
            if (!parser.hasNext() || parser.next() != JsonParser.Event.START_OBJECT) {
                throw new InvalidEnvelopeException("envelope must be a JSON object");
            }
            while (parser.next() == JsonParser.Event.KEY_NAME) {
                String key = parser.getString();
                JsonParser.Event value = parser.next();
                switch (key) {
                    case "id" -> id = string(key, value, parser);
                    case "event_type" -> eventType = string(key, value, parser);
                    case "source_service" -> sourceService = string(key, value, parser);
                    case "occurred_at" -> occurredAt = string(key, value, parser);
                    case "correlation_id" -> correlationId = string(key, value, parser);
                    case "aggregate_id" -> aggregateId = string(key, value, parser);
                    case "causation_id" -> causationId = string(key, value, parser);
                    case "schema_version" -> {
                        if (value != JsonParser.Event.VALUE_NUMBER || !parser.isIntegralNumber()) {
                            throw new InvalidEnvelopeException("schema_version must be an integer");
                        }
                        schemaVersion = parser.getInt();
                    }
                    default -> skip(value, parser);
                }
            }
        } catch (InvalidEnvelopeException e) {
            throw e;
        } catch (JsonException | IllegalStateException | java.util.NoSuchElementException e) {
            throw new InvalidEnvelopeException("envelope is not valid JSON: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Parsson refuses nesting deeper than 1,000 with a bare RuntimeException (found by
            // EnvelopeJsonPropertyTest): outside input, so an invalid envelope like any other.
            throw new InvalidEnvelopeException("envelope is not readable JSON: " + e.getMessage(), e);
        }
        return new EnvelopeHeaders(
                uuid(id),
                EventEnvelope.checkEventType(eventType),
                required("source_service", sourceService),
                instant(occurredAt),
                schemaVersion == null ? 1 : schemaVersion,
                required("correlation_id", correlationId),
                aggregateId,
                causationId);
    }

    private static String string(String key, JsonParser.Event value, JsonParser parser) {
        if (value == JsonParser.Event.VALUE_NULL) {
            return null;
        }
        if (value != JsonParser.Event.VALUE_STRING) {
            throw new InvalidEnvelopeException(key + " must be a string");
        }
        return parser.getString();
    }

    private static void skip(JsonParser.Event value, JsonParser parser) {
        if (value == JsonParser.Event.START_OBJECT) {
            parser.skipObject();
        } else if (value == JsonParser.Event.START_ARRAY) {
            parser.skipArray();
        }
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidEnvelopeException(name + " is required");
        }
        return value;
    }

    private static UUID uuid(String value) {
        try {
            return UUID.fromString(required("id", value));
        } catch (IllegalArgumentException e) {
            if (e instanceof InvalidEnvelopeException invalid) {
                throw invalid;
            }
            throw new InvalidEnvelopeException("id must be a UUID, was '" + value + "'", e);
        }
    }

    private static Instant instant(String value) {
        try {
            return Instant.parse(required("occurred_at", value));
        } catch (DateTimeParseException e) {
            throw new InvalidEnvelopeException("occurred_at must be an RFC 3339 UTC time, was '" + value + "'", e);
        }
    }
}
