package dev.durability.deadletter.control;

import com.rabbitmq.client.AMQP;
import dev.durability.envelope.EventEnvelope;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A delivery from the dead-letter queue, read into the facts of its audit row. Reading never fails:
 * whatever arrives is recorded, at worst as raw bytes without a token.
 *
 * <p>Precedence: a valid latest {@code x-death} entry makes it a broker-path dead letter (even when the
 * body is the application's wrapper: a replayed envelope dead-lettered again is a new occurrence);
 * else the application's wrapper; else an unknown dead letter.
 */
public record IncomingDeadLetter(
        Path path,
        UUID envelopeId,
        String originalQueue,
        String sourceService,
        String eventType,
        String reason,
        MessageContent content,
        String xDeathJson,
        String occurrenceToken,
        Instant occurredAt,
        boolean evidenceTruncated) {

    private static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");

    /** A dead letter whose content is its original, whole. */
    public IncomingDeadLetter(
            Path path,
            UUID envelopeId,
            String originalQueue,
            String sourceService,
            String eventType,
            String reason,
            MessageContent content,
            String xDeathJson,
            String occurrenceToken,
            Instant occurredAt) {
        this(
                path,
                envelopeId,
                originalQueue,
                sourceService,
                eventType,
                reason,
                content,
                xDeathJson,
                occurrenceToken,
                occurredAt,
                false);
    }

    /** Text from a message is evidence, kept bounded and free of the NUL PostgreSQL's text refuses. */
    public IncomingDeadLetter {
        originalQueue = text(originalQueue, 512);
        sourceService = text(sourceService, 512);
        eventType = text(eventType, 255);
        reason = text(reason == null || reason.isBlank() ? "(no reason given)" : reason, 4000);
    }

    private static String text(String value, int max) {
        if (value == null) {
            return null;
        }
        String clean = value.replace('\u0000', '\uFFFD');
        return clean.length() > max ? clean.substring(0, max) + "..." : clean;
    }

    public enum Path {
        BROKER,
        APPLICATION,
        UNKNOWN;

        public String column() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static IncomingDeadLetter read(String routingKey, AMQP.BasicProperties properties, byte[] body) {
        Map<String, Object> headers = properties.getHeaders();
        String keyQueue = routingKey != null && routingKey.startsWith(DeadLetterRoutingKey.PREFIX)
                ? routingKey.substring(DeadLetterRoutingKey.PREFIX.length())
                : null;
        String xDeathJson = XDeath.json(headers).orElse(null);
        Optional<XDeath> death = XDeath.latest(headers);
        if (death.isPresent()) {
            XDeath latest = death.get();
            MessageContent content = MessageContent.of(body);
            UUID id = content.envelopeId() != null ? content.envelopeId() : messageId(properties);
            // Only an entry of the queue that dead-lettered it into this key identifies the occurrence.
            String token = id != null && latest.queue().equals(keyQueue)
                    ? OccurrenceToken.valid(OccurrenceToken.broker(
                                    id, latest.queue(), latest.reason(), latest.count(), latest.time()))
                            .orElse(null)
                    : null;
            return new IncomingDeadLetter(
                    Path.BROKER,
                    id,
                    latest.queue(),
                    content.sourceService() != null ? content.sourceService() : properties.getAppId(),
                    eventType(content, properties),
                    "broker: " + latest.reason() + " in queue " + latest.queue() + " (x-death count " + latest.count()
                            + ")",
                    content,
                    xDeathJson,
                    token,
                    latest.count() == 1 ? plausible(latest.time()) : null);
        }
        if (headers != null && headers.containsKey(DeadLetterWrapper.HEADER)) {
            Optional<DeadLetterWrapper> read = DeadLetterWrapper.read(body);
            if (read.isPresent()) {
                DeadLetterWrapper wrapper = read.get();
                MessageContent content = wrapper.original();
                UUID id = content.envelopeId();
                return new IncomingDeadLetter(
                        Path.APPLICATION,
                        id,
                        wrapper.consumerQueue() != null ? wrapper.consumerQueue() : keyQueue,
                        wrapper.producerService() != null ? wrapper.producerService() : content.sourceService(),
                        content.eventType(),
                        wrapper.reason(),
                        content,
                        xDeathJson,
                        OccurrenceToken.validApplication(wrapper.occurrenceToken(), id, wrapper.consumerQueue())
                                .or(() -> OccurrenceToken.validMalformed(wrapper.occurrenceToken()))
                                .orElse(null),
                        plausible(wrapper.deadLetteredAt()),
                        wrapper.evidenceTruncated());
            }
        }
        MessageContent content = MessageContent.of(body);
        return new IncomingDeadLetter(
                Path.UNKNOWN,
                content.envelopeId() != null ? content.envelopeId() : messageId(properties),
                keyQueue,
                content.sourceService() != null ? content.sourceService() : properties.getAppId(),
                eventType(content, properties),
                "unknown: no x-death header and no dead-letter wrapper (routing key " + routingKey + ")",
                content,
                xDeathJson,
                null,
                null);
    }

    /**
     * The same facts kept as raw bytes only, tokenless and quarantined, when the database refused them as
     * they were: nothing that came with the message but its bytes and plain text, so this row always fits.
     */
    public IncomingDeadLetter quarantined(String why) {
        return new IncomingDeadLetter(
                path,
                envelopeId,
                originalQueue,
                sourceService,
                eventType,
                "quarantined: " + why + "; " + reason,
                content.asRaw(),
                null,
                null,
                null,
                evidenceTruncated);
    }

    /** A dead letter whose reading failed: its bytes, where it was routed, and why. */
    public static IncomingDeadLetter unreadable(String routingKey, byte[] body, String why) {
        return new IncomingDeadLetter(
                Path.UNKNOWN,
                null,
                routingKey != null && routingKey.startsWith(DeadLetterRoutingKey.PREFIX)
                        ? routingKey.substring(DeadLetterRoutingKey.PREFIX.length())
                        : routingKey,
                null,
                null,
                "unreadable dead letter: " + why,
                new MessageContent(null, body, null, null, null),
                null,
                null,
                null);
    }

    /** A time from a message, if PostgreSQL can store it and it is no later than tomorrow; else none. */
    private static Instant plausible(Instant time) {
        return time != null
                        && time.isAfter(EARLIEST)
                        && time.isBefore(Instant.now().plus(Duration.ofDays(1)))
                ? time
                : null;
    }

    private static UUID messageId(AMQP.BasicProperties properties) {
        try {
            return properties.getMessageId() == null ? null : UUID.fromString(properties.getMessageId());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String eventType(MessageContent content, AMQP.BasicProperties properties) {
        if (content.eventType() != null) {
            return content.eventType();
        }
        try {
            return properties.getType() == null ? null : EventEnvelope.checkEventType(properties.getType());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
