package dev.durability.deadletter.control;

import dev.durability.envelope.EnvelopeJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;

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
        MessageContent original) {

    /** The AMQP header that marks a wrapper, with its version. */
    public static final String HEADER = "x-durability-dead-letter";

    public static final int VERSION = 1;

    private static final int MAX_REASON = 2000;

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
            JsonValue envelope = json.get("envelope");
            if (envelope != null && envelope.getValueType() != JsonValue.ValueType.NULL) {
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
                    original));
        } catch (RuntimeException unreadable) {
            return Optional.empty();
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
