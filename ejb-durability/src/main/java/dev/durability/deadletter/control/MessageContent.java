package dev.durability.deadletter.control;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.CloudEventJson;
import dev.durability.envelope.control.EnvelopeHeaders;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A message body as the audit keeps it: JSON text when it is UTF-8 JSON that PostgreSQL's jsonb can
 * store, the raw bytes otherwise; plus the envelope's id, type and source when it is an envelope.
 */
public record MessageContent(String json, byte[] raw, UUID envelopeId, String eventType, String sourceService) {

    public static MessageContent of(byte[] body) {
        Optional<String> text = utf8(body);
        if (text.isEmpty() || text.get().contains("\\u0000") || !isJson(text.get())) {
            return new MessageContent(null, body, null, null, null);
        }
        return ofJson(text.get());
    }

    /** JSON text already known to be valid JSON. */
    static MessageContent ofJson(String json) {
        try {
            EnvelopeHeaders headers = EnvelopeHeaders.read(json);
            return new MessageContent(json, null, headers.id(), headers.eventType(), headers.sourceService());
        } catch (RuntimeException notAnEnvelope) {
            return ofCloudEvent(json);
        }
    }

    /** A CloudEvent's id, type and source as the consumer maps them (docs/envelope.md, "CloudEvents"). */
    private static MessageContent ofCloudEvent(String json) {
        try {
            if (CloudEventJson.isCloudEvent(json)) {
                // Its time plays no part in the facts kept here.
                EventEnvelope event = CloudEventJson.read(json, Instant.EPOCH).envelope();
                return new MessageContent(json, null, event.id(), event.eventType(), event.sourceService());
            }
        } catch (RuntimeException notAnEvent) {
            // kept without facts, like any JSON that is no envelope
        }
        return new MessageContent(json, null, null, null, null);
    }

    /** The same content kept as bytes only, for a row whose JSON the database refused. */
    public MessageContent asRaw() {
        return new MessageContent(null, bytes(), envelopeId, eventType, sourceService);
    }

    public byte[] bytes() {
        return raw != null ? raw : json.getBytes(StandardCharsets.UTF_8);
    }

    /** The body as text when it is valid UTF-8. */
    public static Optional<String> utf8(byte[] body) {
        try {
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static boolean isJson(String text) {
        try (var reader = EnvelopeJson.PROVIDER.createReader(new StringReader(text))) {
            JsonValue ignored = reader.readValue();
            return true;
        } catch (RuntimeException e) {
            // Not only JsonException: Parsson refuses nesting deeper than 1,000 with a bare RuntimeException
            // (found by DeadLetterInputPropertyTest). Whatever the reader cannot read is kept as raw bytes.
            return false;
        }
    }
}
