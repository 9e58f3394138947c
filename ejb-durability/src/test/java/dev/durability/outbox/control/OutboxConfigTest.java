package dev.durability.outbox.control;

import dev.durability.config.control.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutboxConfigTest {

    private static OutboxConfig defaults() {
        OutboxConfig config = new OutboxConfig();
        config.pollIntervalMillis = 1000;
        config.batchSize = 100;
        config.leaseSeconds = 60;
        config.tickBudgetMillis = 5000;
        config.confirmTimeoutMillis = 10_000;
        config.backoffInitialMillis = 1000;
        config.backoffMaxMillis = 60_000;
        config.pendingGraceSeconds = 300;
        config.maxEnvelopeBytes = 1_048_576;
        return config;
    }

    @Test
    void specDefaultsAreValid() {
        assertThatCode(() -> defaults().validate()).doesNotThrowAnyException();
    }

    @Test
    void batchSizeOutOfRangeNamesTheKey() {
        OutboxConfig config = defaults();
        config.batchSize = 0;
        assertThatThrownBy(config::validate).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.outbox.batch-size").hasMessageContaining("'0'");
    }

    @Test
    void leaseMustOutlastAConfirmRound() {
        OutboxConfig config = defaults();
        config.leaseSeconds = 30;
        assertThatCode(() -> config.checkLeaseOutlasts(25_000)).doesNotThrowAnyException();
        assertThatThrownBy(() -> config.checkLeaseOutlasts(26_000))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.outbox.lease-seconds")
                .hasMessageContaining("durability.outbox.confirm-timeout-ms");
    }

    @Test
    void backoffCapBelowItsStartIsRefused() {
        OutboxConfig config = defaults();
        config.backoffMaxMillis = 500;
        assertThatThrownBy(config::validate).hasMessageContaining("durability.outbox.backoff-max-ms");
    }
}
