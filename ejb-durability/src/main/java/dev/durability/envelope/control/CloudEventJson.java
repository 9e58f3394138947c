package dev.durability.envelope.control;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The envelope as a CloudEvents 1.0 event in the structured JSON format ({@code application/cloudevents+json}),
 * both ways, with JSON-P: the CloudEvents Java SDK's only JSON format is built on Jackson, which a Jakarta EE
 * application whose JSON is JSON-P and JSON-B should not carry for one mapping
 * (docs/decisions/0078-cloudevents-envelope-format.md, which also gives every mapping rule).
 *
 * <p>Written: {@code id}, {@code type} (the event type), {@code source} (the source service), {@code time},
 * {@code subject} (the aggregate id, when there is one), {@code datacontenttype} {@code application/json} and
 * {@code data} (the payload); the envelope's other fields as extension attributes named by {@link #extensionName};
 * {@code traceparent} and {@code tracestate} as the distributed-tracing extension when given.
 *
 * <p>Read: any CloudEvents 1.0 JSON event, ours or another stack's. What the envelope cannot hold without guessing
 * (no {@code id}, {@code source} or {@code type}, a type that is no dotted lower-case event type, data that is no
 * JSON object) is an {@link InvalidEnvelopeException}, which the consumer dead-letters as malformed.
 */
public final class CloudEventJson {
    /** The structured mode's content type, which the publisher sets and the consumer recognizes first. */
    public static final String CONTENT_TYPE = "application/cloudevents+json";

    public static final String SPEC_VERSION = "1.0";

    private static final String BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";
    private static final String DATA_CONTENT_TYPE = "application/json";

    /**
     * CloudEvents attribute names: lower-case ASCII letters and digits, at most 20 characters (advised). Declared
     * before the names below, which are made with it.
     */
    private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[a-z0-9]{1,20}");

    private static final Pattern NOT_ALPHANUMERIC = Pattern.compile("[^a-z0-9]");

    /** Extension attributes for the envelope fields CloudEvents has no attribute of its own for. */
    static final String CORRELATION_ID = extensionName("correlation_id");

    static final String CAUSATION_ID = extensionName("causation_id");
    static final String SCHEMA_VERSION = extensionName("schema_version");

    /** The distributed-tracing extension: W3C trace context, as the tracing helpers carry it. */
    static final String TRACEPARENT = "traceparent";

    static final String TRACESTATE = "tracestate";

    private CloudEventJson() {}

    /** An event read from a message, with the trace context it carried, if any (null when absent). */
    public record Decoded(EventEnvelope envelope, String traceparent, String tracestate) {}

    /**
     * The CloudEvents attribute name of an envelope field: lower-cased, everything but letters and digits
     * dropped ({@code correlation_id} is {@code correlationid}).
     */
    static String extensionName(String field) {
        String name = NOT_ALPHANUMERIC.matcher(field.toLowerCase(Locale.ROOT)).replaceAll("");
        if (!ATTRIBUTE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + field + "' makes no CloudEvents attribute name: '" + name + "'");
        }
        return name;
    }

    /** This envelope as a CloudEvent; the trace context is optional (null: left out). */
    public static String write(EventEnvelope envelope, String traceparent, String tracestate) {
        return fromEnvelopeJson(EnvelopeJson.write(envelope), traceparent, tracestate);
    }

    /**
     * A stored envelope (its JSON form) as a CloudEvent, without building a tree of its payload: the header fields
     * are read and validated first, then the payload is copied event by event into {@code data}, as the publisher
     * sends stored envelopes (ConfirmedPublisher).
     *
     * @throws InvalidEnvelopeException when the stored envelope breaks the envelope's rules
     */
    public static String fromEnvelopeJson(String envelopeJson, String traceparent, String tracestate) {
        return fromEnvelopeJson(EnvelopeHeaders.read(envelopeJson), envelopeJson, traceparent, tracestate);
    }

    /** As {@link #fromEnvelopeJson(String, String, String)}, with the header fields the caller already read. */
    public static String fromEnvelopeJson(
            EnvelopeHeaders headers, String envelopeJson, String traceparent, String tracestate) {
        StringWriter out = new StringWriter(envelopeJson.length() + 256);
        try (JsonGenerator json = EnvelopeJson.PROVIDER.createGenerator(out)) {
            json.writeStartObject()
                    .write("specversion", SPEC_VERSION)
                    .write("id", headers.id().toString())
                    .write("source", headers.sourceService())
                    .write("type", headers.eventType());
            if (headers.aggregateId() != null) {
                json.write("subject", headers.aggregateId());
            }
            json.write("time", headers.occurredAt().toString())
                    .write("datacontenttype", DATA_CONTENT_TYPE)
                    .write(CORRELATION_ID, headers.correlationId());
            if (headers.causationId() != null) {
                json.write(CAUSATION_ID, headers.causationId());
            }
            json.write(SCHEMA_VERSION, headers.schemaVersion());
            if (traceparent != null && !traceparent.isBlank()) {
                json.write(TRACEPARENT, traceparent);
                if (tracestate != null && !tracestate.isBlank()) {
                    json.write(TRACESTATE, tracestate);
                }
            }
            json.writeKey("data");
            copyPayload(envelopeJson, json);
            json.writeEnd();
        } catch (JsonException | IllegalStateException e) {
            throw new InvalidEnvelopeException("envelope cannot be written as a CloudEvent: " + e.getMessage(), e);
        }
        return out.toString();
    }

    /** Copies the envelope's payload object to the generator, one parser event at a time. */
    private static void copyPayload(String envelopeJson, JsonGenerator out) {
        try (JsonParser parser = EnvelopeJson.PROVIDER.createParser(new StringReader(envelopeJson))) {
            parser.next(); // the envelope's START_OBJECT
            while (parser.next() == JsonParser.Event.KEY_NAME) {
                boolean payload = parser.getString().equals("payload");
                JsonParser.Event value = parser.next();
                if (payload) {
                    copyValue(value, parser, out);
                    return;
                }
                if (value == JsonParser.Event.START_OBJECT) {
                    parser.skipObject();
                } else if (value == JsonParser.Event.START_ARRAY) {
                    parser.skipArray();
                }
            }
        }
        throw new InvalidEnvelopeException("payload must be a JSON object");
    }

    private static void copyValue(JsonParser.Event first, JsonParser parser, JsonGenerator out) {
        int depth = 0;
        JsonParser.Event event = first;
        while (true) {
            switch (event) {
                case START_OBJECT -> {
                    out.writeStartObject();
                    depth++;
                }
                case START_ARRAY -> {
                    out.writeStartArray();
                    depth++;
                }
                case END_OBJECT, END_ARRAY -> {
                    out.writeEnd();
                    depth--;
                }
                case KEY_NAME -> out.writeKey(parser.getString());
                case VALUE_STRING -> out.write(parser.getString());
                case VALUE_NUMBER -> out.write(parser.getBigDecimal());
                case VALUE_TRUE -> out.write(true);
                case VALUE_FALSE -> out.write(false);
                case VALUE_NULL -> out.writeNull();
            }
            if (depth == 0) {
                return;
            }
            event = parser.next();
        }
    }

    /**
     * Reads a message body of either format: a CloudEvent when the content type says so or, for any other content
     * type, when the JSON object has a {@code specversion}; the envelope's own form otherwise.
     *
     * @param contentType the message's content type, null when it has none
     * @param whenTimeAbsent the occurrence time of a CloudEvent without {@code time} (an optional attribute): the
     *     message's timestamp or its arrival
     * @throws InvalidEnvelopeException naming the field that makes the body no envelope
     */
    public static Decoded readEither(String contentType, String text, Instant whenTimeAbsent) {
        String mediaType = mediaType(contentType);
        if (mediaType.equals(BATCH_CONTENT_TYPE)) {
            throw new InvalidEnvelopeException("a batch of CloudEvents (" + BATCH_CONTENT_TYPE + ") is not "
                    + "consumed: publish one event per message");
        }
        JsonObject json = EnvelopeJson.parse(text);
        if (mediaType.equals(CONTENT_TYPE) || json.containsKey("specversion")) {
            return read(json, whenTimeAbsent);
        }
        return new Decoded(EnvelopeJson.read(json), null, null);
    }

    /** Reads a CloudEvent; see {@link #readEither} for {@code whenTimeAbsent}. */
    public static Decoded read(String text, Instant whenTimeAbsent) {
        return read(EnvelopeJson.parse(text), whenTimeAbsent);
    }

    /** Whether this body, known to be JSON, is a CloudEvent by its {@code specversion}. */
    public static boolean isCloudEvent(String text) {
        try {
            return EnvelopeJson.parse(text).containsKey("specversion");
        } catch (InvalidEnvelopeException e) {
            return false;
        }
    }

    static Decoded read(JsonObject json, Instant whenTimeAbsent) {
        String specVersion = required(json, "specversion");
        if (!specVersion.equals(SPEC_VERSION)) {
            throw new InvalidEnvelopeException(
                    "specversion must be " + SPEC_VERSION + ", was '" + specVersion + "': no other is consumed");
        }
        String id = required(json, "id");
        String source = required(json, "source");
        String type = required(json, "type");
        UUID envelopeId = envelopeId(source, id);
        String subject = EnvelopeJson.text(json, "subject");
        String time = EnvelopeJson.text(json, "time");
        Instant occurredAt;
        if (time == null) {
            if (whenTimeAbsent == null) {
                throw new InvalidEnvelopeException("time is required");
            }
            occurredAt = whenTimeAbsent;
        } else {
            occurredAt = instant(time);
        }
        String correlationId = extension(json, CORRELATION_ID);
        EventEnvelope envelope = new EventEnvelope(
                envelopeId,
                type,
                source,
                subject == null ? null : uuidOrNull(subject),
                occurredAt,
                schemaVersion(json),
                correlationId == null ? envelopeId.toString() : correlationId,
                extension(json, CAUSATION_ID),
                data(json));
        return new Decoded(envelope, extension(json, TRACEPARENT), extension(json, TRACESTATE));
    }

    /**
     * The envelope id of a CloudEvent: its id when that is a UUID; otherwise a name-based UUID of its source and id,
     * which CloudEvents makes unique per event, so every delivery of one foreign event gets the same envelope id and
     * the inbox counts its copies as duplicates.
     */
    public static UUID envelopeId(String source, String id) {
        try {
            UUID uuid = UUID.fromString(id);
            if (uuid.toString().equalsIgnoreCase(id)) {
                return uuid;
            }
        } catch (IllegalArgumentException e) {
            // not a UUID: named below
        }
        String name = "cloudevents:" + source.length() + ":" + source + ":" + id;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    }

    private static JsonObject data(JsonObject json) {
        if (json.containsKey("data_base64")) {
            throw new InvalidEnvelopeException(
                    "data_base64 (binary data) is not consumed: the envelope's payload is a JSON object");
        }
        String dataContentType = EnvelopeJson.text(json, "datacontenttype");
        if (dataContentType != null && !isJson(mediaType(dataContentType))) {
            throw new InvalidEnvelopeException(
                    "datacontenttype '" + dataContentType + "' is not JSON: the envelope's payload is a JSON object");
        }
        JsonValue data = json.get("data");
        if (data == null || data.getValueType() == JsonValue.ValueType.NULL) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        if (data.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new InvalidEnvelopeException(
                    "data must be a JSON object (the envelope's payload), was " + data.getValueType());
        }
        return data.asJsonObject();
    }

    private static boolean isJson(String mediaType) {
        return mediaType.equals("application/json") || mediaType.equals("text/json") || mediaType.endsWith("+json");
    }

    /** The media type of a content type, lower-cased, without parameters; empty when there is none. */
    private static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int parameters = contentType.indexOf(';');
        return (parameters < 0 ? contentType : contentType.substring(0, parameters))
                .trim()
                .toLowerCase(Locale.ROOT);
    }

    private static int schemaVersion(JsonObject json) {
        JsonValue value = json.get(SCHEMA_VERSION);
        try {
            if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
                return 1;
            }
            if (value instanceof JsonNumber number) {
                return number.intValueExact();
            }
            if (value instanceof JsonString text) {
                return Integer.parseInt(text.getString());
            }
        } catch (ArithmeticException | NumberFormatException e) {
            // falls through to the error below
        }
        throw new InvalidEnvelopeException(SCHEMA_VERSION + " must be an integer, was " + value);
    }

    private static String required(JsonObject json, String name) {
        String value = EnvelopeJson.text(json, name);
        if (value == null || value.isEmpty()) {
            throw new InvalidEnvelopeException(name + " is required (a CloudEvents 1.0 required attribute)");
        }
        return value;
    }

    /** An extension attribute: a string, or a number or boolean as its JSON text. */
    private static String extension(JsonObject json, String name) {
        JsonValue value = json.get(name);
        if (value == null) {
            return null;
        }
        return switch (value.getValueType()) {
            case NULL -> null;
            case STRING -> ((JsonString) value).getString();
            case NUMBER, TRUE, FALSE -> value.toString();
            default -> throw new InvalidEnvelopeException(name + " must be a string");
        };
    }

    private static UUID uuidOrNull(String subject) {
        try {
            UUID uuid = UUID.fromString(subject);
            return uuid.toString().equalsIgnoreCase(subject) ? uuid : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Instant instant(String time) {
        try {
            return OffsetDateTime.parse(time, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidEnvelopeException("time must be an RFC 3339 time, was '" + time + "'", e);
        }
    }
}
