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
import java.util.Optional;
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

    private static Duration shippedDuration(String key) {
        return Duration.parse(
                Objects.requireNonNull(SHIPPED.getProperty(key), key).trim());
    }

    private static RetentionConfig shipped() {
        RetentionConfig config = new RetentionConfig();
        config.outboxWindow = shippedDuration(RetentionConfig.OUTBOX_WINDOW);
        config.unroutableWindow = shippedDuration(RetentionConfig.UNROUTABLE_WINDOW);
        config.inboxWindow = shippedDuration(RetentionConfig.INBOX_WINDOW);
        config.deadLetterWindow = shippedDuration(RetentionConfig.DEAD_LETTER_WINDOW);
        config.interval = shippedDuration(RetentionConfig.INTERVAL);
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
    private static RetentionConfig config(String outbox, String inbox) {
        RetentionConfig config = shipped();
        config.outboxWindow = Duration.parse(outbox);
        config.inboxWindow = Duration.parse(inbox);
        return config;
    }

    @Test
    void theShippedDefaultsHoldAndThePlanCarriesThem() {
        RetentionConfig shipped = shipped();
        assertThatNoException().isThrownBy(shipped::validate);
        RetentionPlan plan = shipped.plan();
        assertThat(plan.outbox()).isEqualTo(shippedDuration(RetentionConfig.OUTBOX_WINDOW));
        assertThat(plan.unroutable()).isEqualTo(shippedDuration(RetentionConfig.UNROUTABLE_WINDOW));
        assertThat(plan.inbox()).isEqualTo(shippedDuration(RetentionConfig.INBOX_WINDOW));
        assertThat(plan.deadLetters()).isEqualTo(shippedDuration(RetentionConfig.DEAD_LETTER_WINDOW));
        assertThat(plan.batchSize()).isEqualTo(shipped(RetentionConfig.BATCH_SIZE));
        assertThat(plan.maxRowsPerRun()).isEqualTo(shipped(RetentionConfig.MAX_ROWS));
        assertThat(shipped.interval()).isEqualTo(shippedDuration(RetentionConfig.INTERVAL));
        assertThat(shipped.jitter()).isEqualTo(Duration.ofSeconds(shipped(RetentionConfig.JITTER)));
        assertThat(shipped.catchUpPause()).isEqualTo(Duration.ofSeconds(shipped(RetentionConfig.CATCH_UP_PAUSE)));
    }

    @Test
    void anInboxWindowNotOutlivingTheOutboxByADayIsRefusedNamingTheKeyAndTheRule() {
        assertThatThrownBy(() -> config("P30D", "P30D").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-window")
                .hasMessageContaining("durability.retention.outbox-window + 1 day (31 days)");
        assertThatThrownBy(() -> config("P14D", "P7D").validate())
                .hasMessageContaining("durability.retention.inbox-window");
        assertThatNoException().isThrownBy(() -> config("P30D", "P31D").validate());
    }

    /** Below a day, the inbox outlives the outbox by the outbox window again: a short-window service's margin. */
    @Test
    void aShortOutboxWindowNeedsAnInboxTwiceAsLong() {
        assertThatNoException().isThrownBy(() -> config("PT10M", "PT20M").validate());
        assertThatThrownBy(() -> config("PT10M", "PT19M").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-window")
                .hasMessageContaining("+ PT10M (PT20M)");
        assertThatNoException().isThrownBy(() -> config("PT23H", "PT46H").validate());
        assertThatThrownBy(() -> config("PT23H", "PT45H").validate())
                .hasMessageContaining("durability.retention.inbox-window");
    }

    @Test
    void anOutboxKeptForeverNeedsAnInboxKeptForever() {
        assertThatThrownBy(() -> config("PT0S", "P400D").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-window")
                .hasMessageContaining("must be PT0S");
        assertThatNoException().isThrownBy(() -> config("PT0S", "PT0S").validate());
    }

    @Test
    void anInboxKeptForeverIsAlwaysSafe() {
        assertThatNoException().isThrownBy(() -> config("P30D", "PT0S").validate());
    }

    /** A 0.1.0 configuration in whole days is refused, naming the key that replaced it and the same window in it. */
    @Test
    void aRetiredDaysKeyIsRefusedNamingItsReplacement() {
        RetentionConfig retired = shipped();
        retired.retiredInboxDays = Optional.of("45");
        assertThatThrownBy(retired::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.retention.inbox-days")
                .hasMessageContaining("replaced by durability.retention.inbox-window")
                .hasMessageContaining("P45D");
        assertThat(RetentionConfig.RETIRED).hasSize(4);
    }

    @Test
    void theIntervalIsBoundedAndTheJitterShorterThanIt() {
        RetentionConfig minute = shipped();
        minute.interval = Duration.ofMinutes(1);
        minute.jitterSeconds = 30;
        assertThatNoException().isThrownBy(minute::validate);
        minute.jitterSeconds = 60;
        assertThatThrownBy(minute::validate)
                .hasMessageContaining("durability.retention.jitter-seconds")
                .hasMessageContaining("shorter than durability.retention.interval (60 s)");
        RetentionConfig tooOften = shipped();
        tooOften.interval = Duration.ofSeconds(9);
        tooOften.jitterSeconds = 0;
        assertThatThrownBy(tooOften::validate).hasMessageContaining("durability.retention.interval");
        RetentionConfig tooRarely = shipped();
        tooRarely.interval = Duration.ofMinutes(61);
        assertThatThrownBy(tooRarely::validate).hasMessageContaining("durability.retention.interval");
    }

    @Test
    void windowsReadAsDaysWhenWholeAndAsIsoOtherwise() {
        assertThat(RetentionPlan.readable(Duration.ofDays(30))).isEqualTo("30 days");
        assertThat(RetentionPlan.readable(Duration.ofDays(1))).isEqualTo("1 day");
        assertThat(RetentionPlan.readable(Duration.ofMinutes(90))).isEqualTo("PT1H30M");
        assertThat(RetentionPlan.readable(Duration.ZERO)).isEqualTo("PT0S");
    }

    @Test
    void batchesAndCapsMustMakeSense() {
        RetentionConfig noBatch = shipped();
        noBatch.batchSize = 0;
        RetentionConfig capBelowBatch = shipped();
        capBelowBatch.maxRowsPerRun = capBelowBatch.batchSize - 1;
        RetentionConfig negative = shipped();
        negative.deadLetterWindow = Duration.ofDays(-1);
        RetentionConfig noPauseBound = shipped();
        noPauseBound.catchUpPauseSeconds = 3_601;

        assertThatThrownBy(noBatch::validate).hasMessageContaining("durability.retention.batch-size");
        assertThatThrownBy(capBelowBatch::validate).hasMessageContaining("durability.retention.max-rows-per-run");
        assertThatThrownBy(negative::validate).hasMessageContaining("durability.retention.dead-letter-window");
        assertThatThrownBy(noPauseBound::validate).hasMessageContaining("durability.retention.catch-up-pause-seconds");
    }
}
