package dev.durability.deadletter.control;

import com.rabbitmq.client.LongString;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The latest entry of RabbitMQ's {@code x-death} header (the broker keeps the most recent first): which
 * queue dead-lettered the message, why, how often and when. Read defensively: the header may come from
 * anyone who can publish to the dead-letter exchange.
 */
public record XDeath(String queue, String reason, long count, Instant time) {
    public static final String HEADER = "x-death";

    /** The latest entry when it is complete and well-typed, else empty. */
    public static Optional<XDeath> latest(Map<String, Object> headers) {
        if (headers == null || !(headers.get(HEADER) instanceof List<?> entries) || entries.isEmpty()) {
            return Optional.empty();
        }
        if (!(entries.get(0) instanceof Map<?, ?> entry)) {
            return Optional.empty();
        }
        String queue = text(entry.get("queue"));
        String reason = text(entry.get("reason"));
        Object count = entry.get("count");
        Object time = entry.get("time");
        if (queue == null
                || queue.isEmpty()
                || reason == null
                || reason.isEmpty()
                || !(count instanceof Number number)
                || number.longValue() < 1
                || !(time instanceof Date date)) {
            return Optional.empty();
        }
        return Optional.of(new XDeath(queue, reason, number.longValue(), date.toInstant()));
    }

    /** The whole header as JSON, for the audit row; empty when there is none. */
    public static Optional<String> json(Map<String, Object> headers) {
        if (headers == null || !headers.containsKey(HEADER)) {
            return Optional.empty();
        }
        return Optional.of(value(headers.get(HEADER), 0).toString());
    }

    private static JsonValue value(Object value, int depth) {
        if (depth > 8) {
            return EnvelopeJson.PROVIDER.createValue("(nested too deep)");
        }
        if (value == null) {
            return JsonValue.NULL;
        }
        if (value instanceof List<?> list) {
            JsonArrayBuilder array = EnvelopeJson.PROVIDER.createArrayBuilder();
            list.stream().limit(100).forEach(item -> array.add(value(item, depth + 1)));
            return array.build();
        }
        if (value instanceof Map<?, ?> map) {
            JsonObjectBuilder object = EnvelopeJson.PROVIDER.createObjectBuilder();
            map.entrySet().stream()
                    .limit(100)
                    .forEach(e -> object.add(clean(String.valueOf(e.getKey())), value(e.getValue(), depth + 1)));
            return object.build();
        }
        if (value instanceof Date date) {
            return EnvelopeJson.PROVIDER.createValue(date.toInstant().toString());
        }
        if (value instanceof Boolean bool) {
            return bool ? JsonValue.TRUE : JsonValue.FALSE;
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            // NaN and the infinities are AMQP values but no JSON numbers.
            return Double.isFinite(number)
                    ? EnvelopeJson.PROVIDER.createValue(number)
                    : EnvelopeJson.PROVIDER.createValue(String.valueOf(number));
        }
        if (value instanceof Number number) {
            return EnvelopeJson.PROVIDER.createValue(new BigDecimal(number.toString()));
        }
        return EnvelopeJson.PROVIDER.createValue(clean(text(value)));
    }

    /** jsonb refuses NUL in strings; a header is evidence, not data, so a NUL becomes visible text. */
    private static String clean(String text) {
        String bounded = text.length() > 4096 ? text.substring(0, 4096) + "..." : text;
        return bounded.replace("\u0000", "\\u0000");
    }

    private static String text(Object value) {
        if (value instanceof LongString || value instanceof String) {
            return value.toString();
        }
        if (value instanceof byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        return value == null ? null : String.valueOf(value);
    }
}
