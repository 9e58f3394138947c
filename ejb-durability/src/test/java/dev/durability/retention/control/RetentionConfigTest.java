package dev.durability.retention.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class RetentionConfigTest {

    /** The defaults as they ship, read from META-INF/microprofile-config.properties: never restated here. */
    private static final Properties SHIPPED = new Properties();

    static {
        try (InputStream defaults =
                RetentionConfig.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            SHIPPED.load(defaults);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int shipped(String key) {
        return Integer.parseInt(
                Objects.requireNonNull(SHIPPED.getProperty(key), key).trim());
    }

    private static RetentionConfig shipped() {
        RetentionConfig config = new RetentionConfig();
        config.outboxDays = shipped(RetentionConfig.OUTBOX_DAYS);
        config.unroutableDays = shipped(RetentionConfig.UNROUTABLE_DAYS);
        config.inboxDays = shipped(RetentionConfig.INBOX_DAYS);
        config.deadLetterDays = shipped(RetentionConfig.DEAD_LETTER_DAYS);
        config.idempotency =
                Boolean.parseBoolean(Objects.requireNonNull(SHIPPED.getProperty(RetentionConfig.IDEMPOTENCY))
                        .trim());
        config.batchSize = shipped(RetentionConfig.BATCH_SIZE);
        config.maxRowsPerRun = shipped(RetentionConfig.MAX_ROWS);
        config.jitterSeconds = shipped(RetentionConfig.JITTER);
        config.statementTimeoutSeconds = shipped(RetentionConfig.STATEMENT_TIMEOUT);
        config.catchUpPauseSeconds = shipped(RetentionConfig.CATCH_UP_PAUSE);
        return config;
    }

    /** The shipped configuration with other outbox and inbox windows. */
    private static RetentionConfig config(int outboxDays, int inboxDays) {
        RetentionConfig config = shipped();
        config.outboxDays = outboxDays;
        config.inboxDays = inboxDays;
        return config;
    }

    @Test
    void theShippedDefaultsHoldAndThePlanCarriesThem() {
        RetentionConfig shipped = shipped();
        assertThatNoException().isThrownBy(shipped::validate);
        RetentionPlan plan = shipped.plan();
        assertThat(plan.outbox()).isEqualTo(Duration.ofDays(shipped(RetentionConfig.OUTBOX_DAYS)));
        assertThat(plan.unroutable()).isEqualTo(Duration.ofDays(shipped(RetentionConfig.UNROUTABLE_DAYS)));
        assertThat(plan.inbox()).isEqualTo(Duration.ofDays(shipped(RetentionConfig.INBOX_DAYS)));
        assertThat(plan.deadLetters()).isEqualTo(Duration.ofDays(shipped(RetentionConfig.DEAD_LETTER_DAYS)));
        assertThat(plan.batchSize()).isEqualTo(shipped(RetentionConfig.BATCH_SIZE));
        assertThat(plan.maxRowsPerRun()).isEqualTo(shipped(RetentionConfig.MAX_ROWS));
        assertThat(shipped.jitter()).isEqualTo(Duration.ofSeconds(shipped(RetentionConfig.JITTER)));
        assertThat(shipped.catchUpPause()).isEqualTo(Duration.ofSeconds(shipped(RetentionConfig.CATCH_UP_PAUSE)));
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
        RetentionConfig noBatch = shipped();
        noBatch.batchSize = 0;
        RetentionConfig capBelowBatch = shipped();
        capBelowBatch.maxRowsPerRun = capBelowBatch.batchSize - 1;
        RetentionConfig negative = shipped();
        negative.deadLetterDays = -1;
        RetentionConfig noPauseBound = shipped();
        noPauseBound.catchUpPauseSeconds = 3_601;

        assertThatThrownBy(noBatch::validate).hasMessageContaining("durability.retention.batch-size");
        assertThatThrownBy(capBelowBatch::validate).hasMessageContaining("durability.retention.max-rows-per-run");
        assertThatThrownBy(negative::validate).hasMessageContaining("durability.retention.dead-letter-days");
        assertThatThrownBy(noPauseBound::validate).hasMessageContaining("durability.retention.catch-up-pause-seconds");
    }
}
