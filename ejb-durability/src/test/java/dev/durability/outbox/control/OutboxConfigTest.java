package dev.durability.outbox.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

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
        config.claimMaxBytes = 16 * 1024 * 1024;
        config.statementTimeoutMillis = 5_000;
        config.stampTimeoutMillis = 10_000;
        config.envelopeFormat = "durability";
        return config;
    }

    @Test
    void specDefaultsAreValid() {
        assertThatCode(() -> defaults().checkValues()).doesNotThrowAnyException();
    }

    @Test
    void batchSizeOutOfRangeNamesTheKey() {
        OutboxConfig config = defaults();
        config.batchSize = 0;
        assertThatThrownBy(config::checkValues)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.outbox.batch-size")
                .hasMessageContaining("'0'");
    }

    @Test
    void theEnvelopeFormatIsOneOfTwoNamesAndAnyOtherNamesTheKey() {
        OutboxConfig config = defaults();
        assertThat(config.envelopeFormat()).isEqualTo(OutboxConfig.EnvelopeFormat.DURABILITY);
        config.envelopeFormat = "cloudevents";
        assertThatCode(config::checkValues).doesNotThrowAnyException();
        assertThat(config.envelopeFormat()).isEqualTo(OutboxConfig.EnvelopeFormat.CLOUDEVENTS);
        for (String invalid : new String[] {"CloudEvents", "json", ""}) {
            config.envelopeFormat = invalid;
            assertThatThrownBy(config::checkValues)
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("durability.envelope.format")
                    .hasMessageContaining("'" + invalid + "'");
        }
    }

    @Test
    void leaseMustOutlastEveryWaitOfAClaimAddedUp() {
        OutboxConfig config = defaults();
        config.leaseSeconds = 69;
        // Two batches in flight: 2 × 5 s claim statements + 2 × 10 s confirms + 3 × 5 s probes and connection drop
        // + 2 × (10 s stamp + 2 s for it to start) = 69 s: not shorter than the lease.
        assertThatThrownBy(() -> config.checkLeaseOutlasts(5_000))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.outbox.lease-seconds")
                .hasMessageContaining("69000 ms")
                .hasMessageContaining("durability.outbox.stamp-timeout-ms");
        assertThatCode(() -> config.checkLeaseOutlasts(4_999)).doesNotThrowAnyException();
        config.stampTimeoutMillis = 20_000;
        assertThatThrownBy(() -> config.checkLeaseOutlasts(1_000)).isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void envelopeCapStaysUnderWhatADefaultBrokerAccepts() {
        OutboxConfig config = defaults();
        config.maxEnvelopeBytes = 8 * 1024 * 1024 + 1;
        assertThatThrownBy(config::checkValues).hasMessageContaining("durability.outbox.max-envelope-bytes");
    }

    @Test
    void claimByteBoundOutOfRangeNamesTheKey() {
        OutboxConfig config = defaults();
        config.claimMaxBytes = 1000;
        assertThatThrownBy(config::checkValues).hasMessageContaining("durability.outbox.claim-max-bytes");
    }

    @Test
    void backoffCapBelowItsStartIsRefused() {
        OutboxConfig config = defaults();
        config.backoffMaxMillis = 500;
        assertThatThrownBy(config::checkValues).hasMessageContaining("durability.outbox.backoff-max-ms");
    }
}
