package dev.durability.retention.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionConfigTest {

    private static RetentionConfig config(int outboxDays, int inboxDays) {
        RetentionConfig config = new RetentionConfig();
        config.outboxDays = outboxDays;
        config.inboxDays = inboxDays;
        config.deadLetterDays = 90;
        config.idempotency = true;
        config.batchSize = 5_000;
        config.maxRowsPerRun = 500_000;
        config.jitterSeconds = 600;
        config.statementTimeoutSeconds = 30;
        return config;
    }

    @Test
    void theShippedDefaultsHold() {
        assertThatNoException().isThrownBy(() -> config(30, 31).validate());
        assertThat(config(30, 31).plan().inbox()).isEqualTo(Duration.ofDays(31));
    }

    @Test
    void anInboxWindowNotOutlivingTheOutboxByADayIsRefusedNamingTheKeyAndTheRule() {
        assertThatThrownBy(() -> config(30, 30).validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-days")
                .hasMessageContaining("durability.retention.outbox-days + 1 (31)");
        assertThatThrownBy(() -> config(14, 7).validate()).hasMessageContaining("durability.retention.inbox-days");
    }

    @Test
    void anOutboxKeptForeverNeedsAnInboxKeptForever() {
        assertThatThrownBy(() -> config(0, 400).validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-days")
                .hasMessageContaining("must be 0");
        assertThatNoException().isThrownBy(() -> config(0, 0).validate());
    }

    @Test
    void anInboxKeptForeverIsAlwaysSafe() {
        assertThatNoException().isThrownBy(() -> config(30, 0).validate());
    }

    @Test
    void batchesAndCapsMustMakeSense() {
        RetentionConfig noBatch = config(30, 31);
        noBatch.batchSize = 0;
        RetentionConfig capBelowBatch = config(30, 31);
        capBelowBatch.maxRowsPerRun = 100;
        RetentionConfig negative = config(30, 31);
        negative.deadLetterDays = -1;

        assertThatThrownBy(noBatch::validate).hasMessageContaining("durability.retention.batch-size");
        assertThatThrownBy(capBelowBatch::validate).hasMessageContaining("durability.retention.max-rows-per-run");
        assertThatThrownBy(negative::validate).hasMessageContaining("durability.retention.dead-letter-days");
    }
}
