package dev.durability.envelope;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One event as it is staged, published and consumed. Immutable and valid by construction: an
 * envelope that exists has a dotted lower-case type, a source, a UTC instant and a JSON object payload.
 * Its JSON form names the fields in snake case (docs/envelope.md).
 */
public record EventEnvelope(
        UUID id,
        String eventType,
        String sourceService,
        UUID aggregateId,
        Instant occurredAt,
        int schemaVersion,
        String correlationId,
        String causationId,
        JsonObject payload) {

    /** At least two dot-separated lower-case segments, e.g. {@code order.placed}. */
    static final Pattern EVENT_TYPE = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+");

    static final int MAX_TEXT = 255;

    /** Time-ordered ids: UUIDv7 (RFC 9562), monotonic within this JVM even inside one millisecond. */
    private static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    public EventEnvelope {
        require(id != null, "id is required");
        eventType = checkEventType(eventType);
        require(sourceService != null && !sourceService.isBlank(), "source_service is required");
        require(utf8Length(sourceService) <= MAX_TEXT, "source_service is longer than " + MAX_TEXT + " bytes");
        require(occurredAt != null, "occurred_at is required");
        require(schemaVersion >= 1, "schema_version must be 1 or more, was " + schemaVersion);
        require(correlationId != null && !correlationId.isBlank(), "correlation_id is required");
        require(utf8Length(correlationId) <= MAX_TEXT, "correlation_id is longer than " + MAX_TEXT + " bytes");
        require(
                causationId == null || (!causationId.isBlank() && utf8Length(causationId) <= MAX_TEXT),
                "causation_id must be absent or 1.." + MAX_TEXT + " bytes");
        require(payload != null, "payload must be a JSON object");
        require(
                !containsNul(sourceService)
                        && !containsNul(correlationId)
                        && !containsNul(causationId)
                        && !containsNul(payload),
                "the envelope contains a NUL character (\\u0000), which PostgreSQL's jsonb "
                        + "cannot store: remove it, or encode the value (e.g. Base64) in the payload");
    }

    /** Validates an event type, returning it unchanged, or throws {@link InvalidEnvelopeException} saying why. */
    public static String checkEventType(String eventType) {
        require(eventType != null, "event_type is required");
        require(eventType.length() <= MAX_TEXT, "event_type is longer than " + MAX_TEXT + " characters");
        require(
                EVENT_TYPE.matcher(eventType).matches(),
                "event_type must be dotted lower-case like 'order.placed', was '" + eventType + "'");
        return eventType;
    }

    /** Starts a new event of this type from this service: a fresh UUIDv7 id, occurred now, schema version 1. */
    public static Builder builder(String eventType, String sourceService) {
        return new Builder(eventType, sourceService);
    }

    private static boolean containsNul(String text) {
        return text != null && text.indexOf('\0') >= 0;
    }

    /** Walks the tree without recursion: a deeply nested payload must get a clear answer, not a stack overflow. */
    private static boolean containsNul(JsonValue payload) {
        Deque<JsonValue> pending = new ArrayDeque<>();
        pending.push(payload);
        while (!pending.isEmpty()) {
            JsonValue value = pending.pop();
            switch (value.getValueType()) {
                case STRING -> {
                    if (containsNul(((JsonString) value).getString())) {
                        return true;
                    }
                }
                case OBJECT -> {
                    for (Map.Entry<String, JsonValue> member :
                            value.asJsonObject().entrySet()) {
                        if (containsNul(member.getKey())) {
                            return true;
                        }
                        pending.push(member.getValue());
                    }
                }
                case ARRAY -> value.asJsonArray().forEach(pending::push);
                default -> {
                    // numbers, booleans and null hold no text
                }
            }
        }
        return false;
    }

    /** Text that travels as an AMQP short string (app_id, correlation_id) is limited in UTF-8 bytes, not characters. */
    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new InvalidEnvelopeException(message);
        }
    }

    /** Fills in what a producer rarely chooses itself; {@link #build()} validates the whole envelope. */
    public static final class Builder {
        private final UUID id = IDS.generate();
        private final String eventType;
        private final String sourceService;
        private UUID aggregateId;
        // Millisecond precision: what PostgreSQL, AMQP timestamps and most consumers can represent.
        private Instant occurredAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        private int schemaVersion = 1;
        private String correlationId;
        private String causationId;
        private JsonObject payload = JsonValue.EMPTY_JSON_OBJECT;

        private Builder(String eventType, String sourceService) {
            this.eventType = eventType;
            this.sourceService = sourceService;
        }

        public Builder aggregateId(UUID aggregateId) {
            this.aggregateId = aggregateId;
            return this;
        }

        public Builder occurredAt(Instant occurredAt) {
            this.occurredAt = Objects.requireNonNull(occurredAt, "occurredAt");
            return this;
        }

        public Builder schemaVersion(int schemaVersion) {
            this.schemaVersion = schemaVersion;
            return this;
        }

        /** Defaults to the event's own id: a new conversation starts here. */
        public Builder correlationId(String correlationId) {
            this.correlationId = correlationId;
            return this;
        }

        /** The id of the event or command that caused this one, when there is one. */
        public Builder causationId(String causationId) {
            this.causationId = causationId;
            return this;
        }

        public Builder payload(JsonObject payload) {
            this.payload = payload;
            return this;
        }

        public EventEnvelope build() {
            return new EventEnvelope(
                    id,
                    eventType,
                    sourceService,
                    aggregateId,
                    occurredAt,
                    schemaVersion,
                    correlationId == null ? id.toString() : correlationId,
                    causationId,
                    payload);
        }
    }
}
