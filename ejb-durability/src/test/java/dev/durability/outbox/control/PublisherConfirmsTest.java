package dev.durability.outbox.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PublisherConfirmsTest {
    private final PublisherConfirms confirms = new PublisherConfirms();
    private final List<UUID> ids =
            IntStream.range(0, 5).mapToObj(i -> UUID.randomUUID()).toList();

    /** Sends the events with sequence numbers 10, 11, 12, ... as a channel would. */
    private void sendAll() {
        for (int i = 0; i < ids.size(); i++) {
            confirms.sending(10 + i, ids.get(i));
        }
    }

    private Map<UUID, PublishOutcome> outcomes() {
        return confirms.outcomes(ids);
    }

    private PublishOutcome.Result result(int index) {
        return outcomes().get(ids.get(index)).result();
    }

    @Test
    void aMultipleAckConfirmsEverythingUpToItsTagAndNothingBeyond() throws Exception {
        sendAll();
        confirms.handleAck(12, true);
        confirms.handleAck(14, false);
        confirms.await(System.nanoTime() + Duration.ofMillis(50).toNanos());
        assertThat(result(0)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(1)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(2)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(3)).as("tag 13 was never acked").isEqualTo(PublishOutcome.Result.FAILED);
        assertThat(outcomes().get(ids.get(3)).detail()).startsWith("no publisher confirm before the publish round");
        assertThat(result(4)).isEqualTo(PublishOutcome.Result.CONFIRMED);
    }

    @Test
    void aMultipleNackFailsOnlyTheUnsettledUpToItsTag() throws Exception {
        sendAll();
        confirms.handleAck(10, false);
        confirms.handleNack(12, true);
        confirms.handleAck(14, true);
        confirms.await(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        assertThat(result(0)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(1)).isEqualTo(PublishOutcome.Result.REJECTED);
        assertThat(result(2)).isEqualTo(PublishOutcome.Result.REJECTED);
        assertThat(outcomes().get(ids.get(2)).detail()).isEqualTo("nacked by the broker");
        assertThat(result(3)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(4)).isEqualTo(PublishOutcome.Result.CONFIRMED);
    }

    @Test
    void aReturnBeforeItsAckMakesTheMessageUnroutableNotDelivered() throws Exception {
        sendAll();
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .messageId(ids.get(1).toString())
                .build();
        confirms.returned(new Return(312, "NO_ROUTE", "durability.events", "order.placed", properties, new byte[0]));
        confirms.handleAck(14, true);
        confirms.await(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        assertThat(result(1)).isEqualTo(PublishOutcome.Result.UNROUTABLE);
        assertThat(outcomes().get(ids.get(1)).detail())
                .isEqualTo("unroutable: 312 NO_ROUTE (exchange durability.events, routing key order.placed)");
        assertThat(result(0)).isEqualTo(PublishOutcome.Result.CONFIRMED);
    }

    @Test
    void aClosedChannelFailsWhatIsStillOutstandingAndKeepsWhatWasAcked() throws Exception {
        sendAll();
        confirms.handleAck(11, true);
        confirms.closed(new ShutdownSignalException(false, false, null, null));
        confirms.await(System.nanoTime() + Duration.ofSeconds(5).toNanos());
        assertThat(result(0)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(1)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(2)).isEqualTo(PublishOutcome.Result.FAILED);
        assertThat(outcomes().get(ids.get(4)).detail()).startsWith("channel closed before confirm");
    }

    @Test
    void aLateAckAfterTheTimeoutChangesNothing() throws Exception {
        sendAll();
        confirms.await(System.nanoTime() + Duration.ofMillis(20).toNanos());
        assertThat(confirms.timedOut()).isTrue();
        confirms.handleAck(14, true);
        confirms.handleAck(12, false);
        assertThat(outcomes().values()).allMatch(o -> o.result() == PublishOutcome.Result.FAILED);
    }

    @Test
    void unsentEventsFailWhileSentOnesStillGetTheirConfirm() throws Exception {
        confirms.sending(10, ids.get(0));
        confirms.sending(11, ids.get(1));
        confirms.sending(12, ids.get(2)); // registered, then refused by the channel before it took the number
        confirms.notSent(12);
        confirms.failUnsent(ids.subList(2, 5), "not sent: IllegalArgumentException: Short string too long");
        confirms.handleAck(11, true);
        confirms.await(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        assertThat(result(0)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(1)).isEqualTo(PublishOutcome.Result.CONFIRMED);
        assertThat(result(2)).isEqualTo(PublishOutcome.Result.FAILED);
        assertThat(outcomes().get(ids.get(3)).detail()).contains("Short string too long");
        assertThat(confirms.timedOut()).isFalse();
    }
}
