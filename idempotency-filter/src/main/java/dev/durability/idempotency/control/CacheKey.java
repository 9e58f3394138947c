package dev.durability.idempotency.control;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What identifies one idempotent request: {@code sha256(method ":" path ":" raw-query ":" subject ":" key)}.
 * The query is hashed verbatim (never decoded or reordered), so {@code ?a=1&b=2} and {@code ?b=2&a=1} are
 * two requests. A {@code %} or {@code :} inside a field is escaped ({@code %25}, {@code %3A}) before
 * hashing, so no field can bleed into the next: the user {@code ann:x} sending key {@code y} never
 * shares a record with {@code ann} sending key {@code x:y}.
 */
public record CacheKey(byte[] sha256) {

    public static CacheKey of(String method, String path, String rawQuery, String subject, IdempotencyKey key) {
        String preimage = String.join(
                ":",
                escaped(method),
                escaped(path),
                escaped(rawQuery == null ? "" : rawQuery),
                escaped(subject),
                escaped(key.value()));
        return new CacheKey(sha256(preimage.getBytes(StandardCharsets.UTF_8)));
    }

    public static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static String escaped(String field) {
        return field.replace("%", "%25").replace(":", "%3A");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CacheKey that && MessageDigest.isEqual(sha256, that.sha256);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(sha256);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(sha256);
    }
}
