package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

    /** The shipped defaults. */
    private static IdempotencyConfig config() {
        IdempotencyConfig config = new IdempotencyConfig();
        config.methods = List.of("POST", "PATCH");
        config.requiredPaths = Optional.empty();
        config.claimTimeoutMillis = 30_000;
        config.expirySeconds = 86_400;
        config.maxRequestBytes = 2 * 1024 * 1024;
        config.maxResponseBytes = 1024 * 1024;
        config.replayedHeaders = List.of("Content-Type", "Location", "ETag");
        config.policyUrl = "https://example.com/idempotency";
        return config;
    }

    @Test
    void keysTheConfiguredMethodsOnly() {
        IdempotencyConfig config = config();
        config.methods = List.of("post", " PATCH ");
        config.validate();

        assertThat(config.keys("POST")).isTrue();
        assertThat(config.keys("PATCH")).isTrue();
        assertThat(config.keys("PUT")).isFalse();
        assertThat(config.keys("GET")).isFalse();
    }

    @Test
    void aRequiredPathIsExactOrAPrefix() {
        IdempotencyConfig config = config();
        config.requiredPaths = Optional.of(List.of("/api/orders", "/api/payments/*"));
        config.validate();

        assertThat(config.requiresKey("/api/orders")).isTrue();
        assertThat(config.requiresKey("/api/orders/bulk")).isFalse();
        assertThat(config.requiresKey("/api/payments")).isTrue();
        assertThat(config.requiresKey("/api/payments/42")).isTrue();
        assertThat(config.requiresKey("/api/paymentsx")).isFalse();
    }

    @Test
    void aReplayNeverCarriesCookiesOrCredentialsWhateverTheConfigurationLists() {
        for (String header : List.of("Set-Cookie", "authorization", "WWW-Authenticate", "Content-Length")) {
            IdempotencyConfig config = config();
            config.replayedHeaders = List.of("Location", header);

            assertThatThrownBy(config::validate)
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("durability.idempotency.replayed-headers");
        }
        IdempotencyConfig config = config();
        config.validate();
        assertThat(config.replays("content-type")).isTrue();
        assertThat(config.replays("Set-Cookie")).isFalse();
        assertThat(config.replays("X-Internal")).isFalse();
    }

    @Test
    void invalidValuesNameTheirKey() {
        IdempotencyConfig safe = config();
        safe.methods = List.of("POST", "GET");
        IdempotencyConfig pattern = config();
        pattern.requiredPaths = Optional.of(List.of("api/*"));
        IdempotencyConfig shortExpiry = config();
        shortExpiry.expirySeconds = 20;
        IdempotencyConfig expiryWithinClaim = config();
        expiryWithinClaim.claimTimeoutMillis = 600_000;
        expiryWithinClaim.expirySeconds = 300;
        IdempotencyConfig noBody = config();
        noBody.maxRequestBytes = 0;
        IdempotencyConfig relative = config();
        relative.policyUrl = "docs/idempotency.md";

        assertThatThrownBy(safe::validate).hasMessageContaining("durability.idempotency.methods");
        assertThatThrownBy(pattern::validate).hasMessageContaining("durability.idempotency.required-paths");
        assertThatThrownBy(shortExpiry::validate).hasMessageContaining("durability.idempotency.expiry-seconds");
        assertThatThrownBy(expiryWithinClaim::validate).hasMessageContaining("durability.idempotency.expiry-seconds");
        assertThatThrownBy(noBody::validate).hasMessageContaining("durability.idempotency.max-request-bytes");
        assertThatThrownBy(relative::validate).hasMessageContaining("durability.idempotency.policy-url");
    }
}
