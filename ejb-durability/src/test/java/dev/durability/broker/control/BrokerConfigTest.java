package dev.durability.broker.control;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

    /** The shipped defaults (META-INF/microprofile-config.properties). */
    private static BrokerConfig defaults() {
        BrokerConfig config = new BrokerConfig();
        config.host = "localhost";
        config.port = 5672;
        config.username = "guest";
        config.password = "guest";
        config.virtualHost = "/";
        config.connectTimeoutMillis = 5_000;
        config.heartbeatSeconds = 30;
        config.eventsExchange = "durability.events";
        config.alternateExchange = Optional.empty();
        config.deadLetterExchange = "durability.dead-letters";
        config.maxMessageBytes = 16_777_216;
        return config;
    }

    @Test
    void theShippedDefaultsAreValid() {
        assertThatCode(() -> defaults().validate()).doesNotThrowAnyException();
    }

    @Test
    void heartbeatsCannotBeSwitchedOff() {
        BrokerConfig config = defaults();
        config.heartbeatSeconds = 0;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.heartbeat-seconds")
                .hasMessageContaining("'0'");
    }

    @Test
    void aMessageSizeLimitTooSmallForAnyDeadLettersEvidenceIsRefused() {
        BrokerConfig config = defaults();
        config.maxMessageBytes = 65_535;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.max-message-bytes");
    }

    @Test
    void deadLettersCannotGoToTheEventsExchange() {
        BrokerConfig config = defaults();
        config.deadLetterExchange = config.eventsExchange;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.dead-letter-exchange");
    }

    @Test
    void aUsernameLongerThanAnAmqpShortStringIsRefused() {
        BrokerConfig config = defaults();
        config.username = "x".repeat(256);
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.username");
    }

    @Test
    void aPasswordIsRefusedWithoutBeingShown() {
        BrokerConfig config = defaults();
        config.password = "secret\u0007";
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.password")
                .hasMessageNotContaining("secret");
    }
}
