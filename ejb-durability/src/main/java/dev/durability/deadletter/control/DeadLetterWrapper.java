package dev.durability.deadletter.control;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;

/**
 * What the application path publishes to the dead-letter exchange: a versioned JSON wrapper around the
 * original message with the reason, the consumer queue, the producer service, the attempts and the
 * occurrence token (docs/dead-letters.md). The original is embedded as JSON when it is JSON, as
 * Base64 otherwise, so not one byte is lost.
 */
public record DeadLetterWrapper(
        String reason,
        String consumerQueue,
        String producerService,
        String occurrenceToken,
        Instant deadLetteredAt,
        int attempts,
        MessageContent original,
        boolean evidenceTruncated) {

    /** The AMQP header that marks a wrapper, with its version. */
    public static final String HEADER = "x-durability-dead-letter";

    public static final int VERSION = 1;

    private static final int MAX_REASON = 2000;

    /** The most of an original a truncated wrapper keeps: enough to tell what it was. */
    static final int EVIDENCE_BYTES = 65_536;

    /** A wrapper of the whole original. */
    public DeadLetterWrapper(
            String reason,
            String consumerQueue,
            String producerService,
            String occurrenceToken,
            Instant deadLetteredAt,
            int attempts,
            MessageContent original) {
        this(reason, consumerQueue, producerService, occurrenceToken, deadLetteredAt, attempts, original, false);
    }

    /**
     * This wrapper, or, when its JSON would be larger than {@code maxBytes} (the broker's message size limit:
     * a larger message closes the channel, so its original would be redelivered and fail again forever), one
     * that keeps only the first bytes of the original as evidence, with its size and SHA-256 digest in the
     * reason, flagged as truncated (docs/decisions/0058-oversized-dead-letters.md).
     */
    public DeadLetterWrapper within(int maxBytes, int wholeBytes) {
        if (wholeBytes <= maxBytes) {
            return this;
        }
        byte[] whole = original.bytes();
        // Base64 makes 4 bytes of 3; half the limit leaves room for the reason and the other fields.
        int kept = Math.min(whole.length, Math.min(EVIDENCE_BYTES, maxBytes / 2));
        String note = "evidence truncated: the original of " + whole.length + " bytes (sha-256 " + sha256(whole)
                + ") made a dead-letter wrapper of " + wholeBytes + " bytes, over the broker's message size limit of "
                + maxBytes + " bytes; its first " + kept + " bytes are kept";
        return new DeadLetterWrapper(
                note + "; " + reason,
                consumerQueue,
                producerService,
                occurrenceToken,
                deadLetteredAt,
                attempts,
                new MessageContent(
                        null,
                        Arrays.copyOf(whole, kept),
                        original.envelopeId(),
                        original.eventType(),
                        original.sourceService()),
                true);
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    public byte[] toJson() {
        JsonObjectBuilder json = EnvelopeJson.PROVIDER
                .createObjectBuilder()
                .add("wrapper_version", VERSION)
                .add("reason", bounded(reason))
                .add("consumer_queue", consumerQueue)
                .add("attempts", attempts)
                .add("dead_lettered_at", deadLetteredAt.toString());
        nullable(json, "producer_service", producerService);
        nullable(json, "occurrence_token", occurrenceToken);
        if (original.json() != null) {
            json.add(
                    "envelope",
                    EnvelopeJson.PROVIDER
                            .createReader(new StringReader(original.json()))
                            .readValue());
        } else {
            json.add("envelope", JsonValue.NULL);
            json.add("raw_base64", Base64.getEncoder().encodeToString(original.raw()));
        }
        if (evidenceTruncated) {
            // The envelope's facts read from the whole original, which the kept bytes alone no longer give.
            json.add("evidence_truncated", true);
            nullable(
                    json,
                    "envelope_id",
                    original.envelopeId() == null ? null : original.envelopeId().toString());
            nullable(json, "event_type", original.eventType());
            nullable(json, "source_service", original.sourceService());
        }
        return json.build().toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The wrapper in this body, or empty when the body is no wrapper this version can read. */
    public static Optional<DeadLetterWrapper> read(byte[] body) {
        try {
            Optional<String> text = MessageContent.utf8(body);
            if (text.isEmpty()) {
                return Optional.empty();
            }
            JsonValue value = EnvelopeJson.PROVIDER
                    .createReader(new StringReader(text.get()))
                    .readValue();
            if (value.getValueType() != JsonValue.ValueType.OBJECT) {
                return Optional.empty();
            }
            JsonObject json = value.asJsonObject();
            if (json.getInt("wrapper_version", 0) != VERSION) {
                return Optional.empty();
            }
            MessageContent original;
            boolean truncated = json.getBoolean("evidence_truncated", false);
            JsonValue envelope = json.get("envelope");
            if (truncated) {
                original = new MessageContent(
                        null,
                        Base64.getDecoder().decode(json.getString("raw_base64")),
                        uuid(json.getString("envelope_id", null)),
                        eventType(json.getString("event_type", null)),
                        json.getString("source_service", null));
            } else if (envelope != null && envelope.getValueType() != JsonValue.ValueType.NULL) {
                original = MessageContent.of(envelope.toString().getBytes(StandardCharsets.UTF_8));
            } else {
                original = new MessageContent(
                        null, Base64.getDecoder().decode(json.getString("raw_base64")), null, null, null);
            }
            return Optional.of(new DeadLetterWrapper(
                    json.getString("reason", "(no reason given)"),
                    json.getString("consumer_queue", null),
                    json.getString("producer_service", null),
                    json.getString("occurrence_token", null),
                    instant(json.getString("dead_lettered_at", null)),
                    json.getInt("attempts", 0),
                    original,
                    truncated));
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    private static UUID uuid(String text) {
        try {
            return text == null ? null : UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String eventType(String text) {
        try {
            return text == null ? null : EventEnvelope.checkEventType(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String bounded(String text) {
        return text.length() > MAX_REASON ? text.substring(0, MAX_REASON) + "..." : text;
    }

    private static void nullable(JsonObjectBuilder json, String name, String value) {
        if (value == null) {
            json.addNull(name);
        } else {
            json.add(name, value);
        }
    }
}
