package dev.durability.deadletter.control;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The identity of one dead-letter occurrence, from which the audit keeps one row however often the
 * dead letter arrives (docs/decisions/0026-dead-letter-occurrences.md). A token is a validated value:
 * a known prefix, at most 256 bytes of printable ASCII; anything else is no token at all.
 */
public final class OccurrenceToken {
    static final String APPLICATION = "dlxcap:";
    static final String BROKER = "xdeath:";
    static final String MALFORMED = "malformed:";
    static final int MAX_BYTES = 256;
    private static final Pattern MALFORMED_TOKEN = Pattern.compile(MALFORMED + "[0-9a-f]{64}");

    private OccurrenceToken() {}

    /** The application path's token: from the inbox row that existed before anything was published. */
    public static String application(UUID envelopeId, String queue, long receivedMicros) {
        return APPLICATION + envelopeId + ":" + queue + ":" + receivedMicros;
    }

    /**
     * A malformed message's token: it has no envelope and so no inbox row, only its bytes, its message id and
     * the queue it came from. Every delivery of one message gives the same token, so a redelivery after a lost
     * ack is the same occurrence (docs/decisions/0090-malformed-dead-letter-occurrences.md).
     */
    public static String malformed(String queue, String messageId, byte[] body) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {queue, messageId}) {
                // Each part framed by its presence and length: no two different triples hash the same input.
                byte[] bytes = part == null ? new byte[0] : part.getBytes(StandardCharsets.UTF_8);
                digest.update((byte) (part == null ? 0 : 1));
                digest.update(
                        ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
                digest.update(bytes);
            }
            digest.update(body);
            return MALFORMED + HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The broker path's token, from the latest x-death entry. */
    static String broker(UUID envelopeId, String queue, String reason, long count, Instant time) {
        return BROKER + envelopeId + ":" + queue + ":" + reason + ":" + count + ":" + time.getEpochSecond();
    }

    /** The token if it is one, else empty: never a value the audit's index or a log could choke on. */
    public static Optional<String> valid(String token) {
        if (token == null
                || !(token.startsWith(APPLICATION) || token.startsWith(BROKER) || token.startsWith(MALFORMED))
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

    /** A malformed message's token as {@link #malformed} makes it, else empty. */
    static Optional<String> validMalformed(String token) {
        return valid(token).filter(t -> MALFORMED_TOKEN.matcher(t).matches());
    }
}
