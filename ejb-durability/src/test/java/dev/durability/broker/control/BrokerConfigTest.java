package dev.durability.broker.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.rabbitmq.client.Address;
import dev.durability.config.control.InvalidConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BrokerConfigTest {

    /** The shipped defaults (META-INF/microprofile-config.properties), with the credentials a deployment sets. */
    private static BrokerConfig defaults() {
        BrokerConfig config = new BrokerConfig();
        config.addresses = "localhost";
        config.tls = false;
        config.username = Optional.of("orders");
        config.password = Optional.of("orders-secret");
        config.virtualHost = "/";
        config.connectTimeoutMillis = 5_000;
        config.heartbeatSeconds = 30;
        config.eventsExchange = "durability.events";
        config.alternateExchange = Optional.empty();
        config.alternateQueueType = "classic";
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
    void theAlternateQueueIsClassicOrQuorum() {
        BrokerConfig config = defaults();
        config.alternateExchange = Optional.of("orders.unrouted");
        config.alternateQueueType = "quorum";
        assertThatCode(config::validate).doesNotThrowAnyException();
        assertThat(config.alternateQueueQuorum()).isTrue();
        config.alternateQueueType = "stream";
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.alternate-queue-type")
                .hasMessageContaining("'stream'");
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
        config.username = Optional.of("x".repeat(256));
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.username");
    }

    @Test
    void aPasswordIsRefusedWithoutBeingShown() {
        BrokerConfig config = defaults();
        config.password = Optional.of("secret\u0007");
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.password")
                .hasMessageNotContaining("secret");
    }

    @Test
    void noCredentialShipsAndAMissingOneIsRefusedNamingItsKey() throws IOException {
        Properties shipped = new Properties();
        try (InputStream in = BrokerConfig.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            shipped.load(in);
        }
        assertThat(shipped).doesNotContainKeys(BrokerConfig.USERNAME, BrokerConfig.PASSWORD);
        BrokerConfig withoutUser = defaults();
        withoutUser.username = Optional.empty();
        assertThatThrownBy(withoutUser::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.username")
                .hasMessageContaining("is required");
        BrokerConfig withoutPassword = defaults();
        withoutPassword.password = Optional.empty();
        assertThatThrownBy(withoutPassword::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.password")
                .hasMessageContaining("is required");
    }

    @Test
    void aClustersNodesAreAListOfHostsWithOrWithoutPorts() {
        BrokerConfig config = defaults();
        config.addresses = "rabbit-1:5672, rabbit-2,[::1]:5673";
        assertThatCode(config::validate).doesNotThrowAnyException();
        assertThat(config.addresses())
                .extracting(Address::getHost, Address::getPort)
                .containsExactly(tuple("rabbit-1", 5672), tuple("rabbit-2", -1), tuple("[::1]", 5673));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", " ", "rabbit-1:0", "rabbit-1:65536", "rabbit-1:amqp", "rabbit-1,,rabbit-2", "amqp://rabbit-1"
            })
    void anAddressListThatIsNotOneIsRefusedNamingTheKey(String addresses) {
        BrokerConfig config = defaults();
        config.addresses = addresses;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.broker.addresses");
    }
}
