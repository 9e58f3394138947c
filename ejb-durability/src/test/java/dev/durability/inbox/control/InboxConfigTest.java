package dev.durability.inbox.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import dev.durability.inbox.InboxConsumer.QueueType;
import java.util.List;
import org.junit.jupiter.api.Test;

class InboxConfigTest {

    /** The shipped defaults (META-INF/microprofile-config.properties). */
    private static InboxConfig defaults() {
        InboxConfig config = new InboxConfig();
        config.enabled = true;
        config.prefetch = 10;
        config.concurrency = 1;
        config.maxAttempts = 5;
        config.backoffInitialMillis = 1_000;
        config.backoffMaxMillis = 60_000;
        config.superviseIntervalMillis = 5_000;
        config.sendTimeoutMillis = 5_000;
        config.pauseMillis = 5_000;
        config.quorumDeliveryLimit = 20;
        config.deadSessionSeconds = 150;
        config.queueType = "classic";
        return config;
    }

    @Test
    void theShippedDefaultsAreValid() {
        assertThatCode(() -> defaults().validate()).doesNotThrowAnyException();
    }

    @Test
    void aDeadSessionBoundOfZeroIsRefusedNamingTheKey() {
        InboxConfig config = defaults();
        config.deadSessionSeconds = 0;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.inbox.dead-session-seconds");
    }

    @Test
    void moreAttemptsThanTheRetryQueuesCanHoldAreRefusedNamingTheKey() {
        InboxConfig config = defaults();
        config.maxAttempts = 11;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.inbox.max-attempts")
                .hasMessageContaining("'11'");
    }

    @Test
    void aBackoffCapBelowItsStartIsRefused() {
        InboxConfig config = defaults();
        config.backoffMaxMillis = 500;
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.inbox.backoff-max-ms");
    }

    @Test
    void aQueueTypeOtherThanClassicOrQuorumIsRefusedNamingTheKey() {
        InboxConfig config = defaults();
        config.queueType = "Quorum";
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.inbox.queue-type")
                .hasMessageContaining("'Quorum'");
    }

    @Test
    void aConsumerThatChoosesNoQueueTypeGetsTheConfiguredOneAndAChosenOneStays() {
        InboxConfig config = defaults();
        config.queueType = "quorum";
        assertThat(config.queueType(declaration(QueueType.CONFIGURED))).isEqualTo(QueueType.QUORUM);
        assertThat(config.queueType(declaration(QueueType.CLASSIC))).isEqualTo(QueueType.CLASSIC);
        config.queueType = "classic";
        assertThat(config.queueType(declaration(QueueType.CONFIGURED))).isEqualTo(QueueType.CLASSIC);
        assertThat(config.queueType(declaration(QueueType.QUORUM))).isEqualTo(QueueType.QUORUM);
    }

    private static ConsumerDeclaration declaration(QueueType type) {
        return new ConsumerDeclaration("orders.shipments", List.of("order.placed"), 0, 0, 0, type, List.of(), null);
    }
}
