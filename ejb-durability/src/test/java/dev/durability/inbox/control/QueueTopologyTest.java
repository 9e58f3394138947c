package dev.durability.inbox.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The permissions a refused queue declaration is reported to need, as RabbitMQ checks them. */
class QueueTopologyTest {

    @Test
    void aPlainQueueNeedsConfigureOnIt() {
        assertThat(QueueTopology.permissionsToDeclare("orders.dead-letters", Map.of()))
                .isEqualTo("configure on queue 'orders.dead-letters'");
    }

    @Test
    void aQueueWithADeadLetterExchangeNeedsReadOnItAndWriteOnTheExchange() {
        assertThat(QueueTopology.permissionsToDeclare(
                        "orders.shipments", Map.of("x-dead-letter-exchange", "durability.dead-letters")))
                .isEqualTo("configure and read on queue 'orders.shipments' and write on its dead-letter exchange"
                        + " 'durability.dead-letters'");
    }

    @Test
    void aDelayQueueReturningThroughTheDefaultExchangeNeedsWriteOnAmqDefault() {
        assertThat(QueueTopology.permissionsToDeclare(
                        "orders.shipments.retry.1000ms", Map.of("x-dead-letter-exchange", "")))
                .isEqualTo("configure and read on queue 'orders.shipments.retry.1000ms' and write on its"
                        + " dead-letter exchange 'amq.default'");
    }
}
