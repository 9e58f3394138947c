package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

    /**
     * The shipped defaults, read from the library's {@code META-INF/microprofile-config.properties} (the one
     * source every deployment of the filter reads them from), each converted as MicroProfile Config does.
     */
    private static IdempotencyConfig config() {
        Properties shipped = new Properties();
        try (InputStream in = InvalidConfigurationException.class
                .getClassLoader()
                .getResourceAsStream("META-INF/microprofile-config.properties")) {
            assertThat(in).as("the library's shipped configuration").isNotNull();
            shipped.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IdempotencyConfig config = new IdempotencyConfig();
        config.methods = list(shipped, IdempotencyConfig.METHODS).orElseThrow();
        config.requiredPaths = list(shipped, IdempotencyConfig.REQUIRED_PATHS);
        config.anonymousKeyed = Boolean.parseBoolean(value(shipped, IdempotencyConfig.ANONYMOUS));
        config.claimTimeoutMillis = Long.parseLong(value(shipped, IdempotencyConfig.CLAIM_TIMEOUT));
        config.transactionTimeoutSeconds = Long.parseLong(value(shipped, IdempotencyConfig.TRANSACTION_TIMEOUT));
        config.ownTransactionPaths = list(shipped, IdempotencyConfig.OWN_TRANSACTION_PATHS);
        config.expirySeconds = Long.parseLong(value(shipped, IdempotencyConfig.EXPIRY));
        config.maxRequestBytes = Integer.parseInt(value(shipped, IdempotencyConfig.MAX_REQUEST));
        config.maxResponseBytes = Integer.parseInt(value(shipped, IdempotencyConfig.MAX_RESPONSE));
        config.replayedHeaders =
                list(shipped, IdempotencyConfig.REPLAYED_HEADERS).orElseThrow();
        config.policyUrl = value(shipped, IdempotencyConfig.POLICY_URL);
        config.bufferBudgetBytes = Long.parseLong(value(shipped, IdempotencyConfig.BUFFER_BUDGET));
        return config;
    }

    private static String value(Properties shipped, String key) {
        String value = shipped.getProperty(key);
        assertThat(value).as("shipped default of %s", key).isNotNull();
        return value;
    }

    private static Optional<List<String>> list(Properties shipped, String key) {
        String value = shipped.getProperty(key);
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(List.of(value.split(",")));
    }

    @Test
    void theShippedDefaultsAreValidAndKeyWhatTheDocsSay() {
        IdempotencyConfig config = config();
        config.validate();

        assertThat(config.keys("POST")).isTrue();
        assertThat(config.keys("PATCH")).isTrue();
        assertThat(config.keysAnonymousRequests()).isFalse();
        assertThat(config.requiresKey("/api/orders")).isFalse();
        assertThat(config.ownTransaction("/api/orders")).isFalse();
        assertThat(config.replays("Location")).isTrue();
        assertThat(config.transactionTimeout()).isGreaterThan(config.claimTimeout());
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
        IdempotencyConfig noTransactionTime = config();
        noTransactionTime.transactionTimeoutSeconds = 0;
        IdempotencyConfig budgetBelowABody = config();
        budgetBelowABody.bufferBudgetBytes = budgetBelowABody.maxRequestBytes - 1L;
        IdempotencyConfig ownPattern = config();
        ownPattern.ownTransactionPaths = Optional.of(List.of("/api/*/x"));

        assertThatThrownBy(safe::validate).hasMessageContaining("durability.idempotency.methods");
        assertThatThrownBy(pattern::validate).hasMessageContaining("durability.idempotency.required-paths");
        assertThatThrownBy(shortExpiry::validate).hasMessageContaining("durability.idempotency.expiry-seconds");
        assertThatThrownBy(expiryWithinClaim::validate).hasMessageContaining("durability.idempotency.expiry-seconds");
        assertThatThrownBy(noBody::validate).hasMessageContaining("durability.idempotency.max-request-bytes");
        assertThatThrownBy(relative::validate).hasMessageContaining("durability.idempotency.policy-url");
        assertThatThrownBy(noTransactionTime::validate)
                .hasMessageContaining("durability.idempotency.transaction-timeout-seconds");
        assertThatThrownBy(budgetBelowABody::validate)
                .hasMessageContaining("durability.idempotency.buffer-budget-bytes");
        assertThatThrownBy(ownPattern::validate).hasMessageContaining("durability.idempotency.own-transaction-paths");
    }
}
