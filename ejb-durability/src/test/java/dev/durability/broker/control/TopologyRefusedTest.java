package dev.durability.broker.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How a refusal of the broker, as the Java client reports it, becomes the reason a start stops. */
class TopologyRefusedTest {
    private static final String REFUSED =
            "ACCESS_REFUSED - access to queue 'orders.shipments' in vhost '/' refused for user 'orders'";

    @Test
    void anAccessRefusedNamesTheOperationTheBrokersReasonAndThePermissionNeeded() {
        assertThatThrownBy(() -> TopologyRefused.refusedAccessNamed(
                        "declare queue 'orders.shipments'", "configure on queue 'orders.shipments'", () -> {
                            throw channelClosed(AMQP.ACCESS_REFUSED, REFUSED);
                        }))
                .isInstanceOf(TopologyRefused.class)
                .hasMessage("RabbitMQ refused to declare queue 'orders.shipments': " + REFUSED
                        + ". This service's broker user needs configure on queue 'orders.shipments'"
                        + " (docs/grants/rabbitmq.sh, docs/operations.md#least-privileges)")
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void otherFailuresPassAsTheyAre() {
        IOException inequivalent = channelClosed(AMQP.PRECONDITION_FAILED, "PRECONDITION_FAILED - inequivalent arg");
        assertThatThrownBy(
                        () -> TopologyRefused.refusedAccessNamed("declare queue 'q'", "configure on queue 'q'", () -> {
                            throw inequivalent;
                        }))
                .isSameAs(inequivalent);
        IOException unreachable = new IOException("connection reset");
        assertThatThrownBy(
                        () -> TopologyRefused.refusedAccessNamed("declare queue 'q'", "configure on queue 'q'", () -> {
                            throw unreachable;
                        }))
                .isSameAs(unreachable);
    }

    @Test
    void anOperationTheBrokerAcceptsRunsOnce() throws IOException {
        AtomicInteger runs = new AtomicInteger();
        TopologyRefused.refusedAccessNamed("declare queue 'q'", "configure on queue 'q'", runs::incrementAndGet);
        assertThat(runs).hasValue(1);
    }

    @Test
    void tellsAnAccessRefusalFromAnInequivalentDeclaration() {
        IOException refused = channelClosed(AMQP.ACCESS_REFUSED, REFUSED);
        IOException inequivalent = channelClosed(AMQP.PRECONDITION_FAILED, "PRECONDITION_FAILED - inequivalent arg");
        assertThat(TopologyRefused.accessRefused(refused)).contains(REFUSED);
        assertThat(TopologyRefused.preconditionFailed(refused)).isEmpty();
        assertThat(TopologyRefused.preconditionFailed(inequivalent)).contains("PRECONDITION_FAILED - inequivalent arg");
        assertThat(TopologyRefused.accessRefused(inequivalent)).isEmpty();
        assertThat(TopologyRefused.accessRefused(new IOException("connection reset")))
                .isEmpty();
    }

    /** As the client throws it when the broker closes the channel in answer to a method. */
    private static IOException channelClosed(int replyCode, String replyText) {
        AMQP.Channel.Close close = new AMQP.Channel.Close.Builder()
                .replyCode(replyCode)
                .replyText(replyText)
                .classId(50)
                .methodId(10)
                .build();
        return new IOException(new ShutdownSignalException(false, false, close, null));
    }
}
