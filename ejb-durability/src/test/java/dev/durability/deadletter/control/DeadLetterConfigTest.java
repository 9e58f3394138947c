package dev.durability.deadletter.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.config.control.InvalidConfigurationException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeadLetterConfigTest {

    /** The shipped defaults (META-INF/microprofile-config.properties). */
    private static DeadLetterConfig defaults() {
        DeadLetterConfig config = new DeadLetterConfig();
        config.queue = Optional.empty();
        config.threshold = 10;
        config.windowSeconds = 3600;
        config.prefetch = 20;
        config.recordAttempts = 4;
        config.parkMillis = 5_000;
        config.queueType = "classic";
        return config;
    }

    @Test
    void theShippedDefaultsAreValidAndMakeAClassicQueue() {
        DeadLetterConfig config = defaults();
        assertThatCode(config::validate).doesNotThrowAnyException();
        assertThat(config.quorum()).isFalse();
    }

    @Test
    void quorumMakesAQuorumQueue() {
        DeadLetterConfig config = defaults();
        config.queueType = "quorum";
        assertThatCode(config::validate).doesNotThrowAnyException();
        assertThat(config.quorum()).isTrue();
    }

    @Test
    void anotherQueueTypeIsRefusedNamingTheKey() {
        DeadLetterConfig config = defaults();
        config.queueType = "stream";
        assertThatThrownBy(config::validate)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.dead-letter.queue-type")
                .hasMessageContaining("'stream'");
    }
}
