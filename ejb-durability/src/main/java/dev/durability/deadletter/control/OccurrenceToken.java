package dev.durability.deadletter.control;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The identity of one dead-letter occurrence, from which the audit keeps one row however often the
 * dead letter arrives (docs/decisions/0026-dead-letter-occurrences.md). A token is a validated value:
 * a known prefix, at most 256 bytes of printable ASCII; anything else is no token at all.
 */
public final class OccurrenceToken {
    static final String APPLICATION = "dlxcap:";
    static final String BROKER = "xdeath:";
    static final int MAX_BYTES = 256;

    private OccurrenceToken() {}

    /** The application path's token: from the inbox row that existed before anything was published. */
    public static String application(UUID envelopeId, String queue, long receivedMicros) {
        return APPLICATION + envelopeId + ":" + queue + ":" + receivedMicros;
    }

    /** The broker path's token, from the latest x-death entry. */
    static String broker(UUID envelopeId, String queue, String reason, long count, Instant time) {
        return BROKER + envelopeId + ":" + queue + ":" + reason + ":" + count + ":" + time.getEpochSecond();
    }

    /** The token if it is one, else empty: never a value the audit's index or a log could choke on. */
    public static Optional<String> valid(String token) {
        if (token == null
                || !(token.startsWith(APPLICATION) || token.startsWith(BROKER))
                || token.length() > MAX_BYTES
                || token.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return Optional.empty();
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return Optional.empty();
            }
        }
        return Optional.of(token);
    }

    /**
     * An application token that names this envelope and queue, else empty: a wrapper claiming another
     * envelope's occurrence must not take that occurrence's place in the audit.
     */
    static Optional<String> validApplication(String token, UUID envelopeId, String queue) {
        if (envelopeId == null || queue == null) {
            return Optional.empty();
        }
        String prefix = APPLICATION + envelopeId + ":" + queue + ":";
        return valid(token)
                .filter(t -> t.startsWith(prefix))
                .filter(t -> t.length() > prefix.length()
                        && t.substring(prefix.length()).chars().allMatch(Character::isDigit));
    }
}
