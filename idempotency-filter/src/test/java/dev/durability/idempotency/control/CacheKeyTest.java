package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class CacheKeyTest {
    private static final IdempotencyKey KEY = new IdempotencyKey("k-1");

    @Test
    void isTheSha256OfTheFieldsJoinedByColons() {
        CacheKey key = CacheKey.of("POST", "/api/orders", "a=1", "ada", KEY);

        assertThat(key.toString())
                .isEqualTo(HexFormat.of()
                        .formatHex(CacheKey.sha256("POST:/api/orders:a=1:ada:k-1".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void everyFieldTellsRequestsApart() {
        CacheKey base = CacheKey.of("POST", "/api/orders", "", "ada", KEY);

        assertThat(CacheKey.of("PATCH", "/api/orders", "", "ada", KEY)).isNotEqualTo(base);
        assertThat(CacheKey.of("POST", "/api/orders/bulk", "", "ada", KEY)).isNotEqualTo(base);
        assertThat(CacheKey.of("POST", "/api/orders", "x=1", "ada", KEY)).isNotEqualTo(base);
        assertThat(CacheKey.of("POST", "/api/orders", "", "grace", KEY)).isNotEqualTo(base);
        assertThat(CacheKey.of("POST", "/api/orders", "", "ada", new IdempotencyKey("k-2")))
                .isNotEqualTo(base);
        assertThat(CacheKey.of("POST", "/api/orders", null, "ada", KEY)).isEqualTo(base);
    }

    @Test
    void theQueryIsHashedVerbatimNotNormalized() {
        assertThat(CacheKey.of("POST", "/p", "a=1&b=2", "ada", KEY))
                .isNotEqualTo(CacheKey.of("POST", "/p", "b=2&a=1", "ada", KEY));
        assertThat(CacheKey.of("POST", "/p", "a=%41", "ada", KEY))
                .isNotEqualTo(CacheKey.of("POST", "/p", "a=A", "ada", KEY));
    }

    @Test
    void aColonInOneFieldCannotPassForTheBoundaryOfTheNext() {
        assertThat(CacheKey.of("POST", "/p", "", "ann:x", new IdempotencyKey("y")))
                .isNotEqualTo(CacheKey.of("POST", "/p", "", "ann", new IdempotencyKey("x:y")));
        assertThat(CacheKey.of("POST", "/p:q", "", "ann", KEY))
                .isNotEqualTo(CacheKey.of("POST", "/p", "q", "ann", KEY));
        assertThat(CacheKey.of("POST", "/p", "", "ann%3Ax", new IdempotencyKey("y")))
                .isNotEqualTo(CacheKey.of("POST", "/p", "", "ann:x", new IdempotencyKey("y")));
    }
}
