package dev.durability.inbox.boundary;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import dev.durability.inbox.entity.InboxState;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InboxListenerTest {
    private static final InboxState GAVE_UP_ON_P1 = new InboxState(false, true, 5, 1L, "boom", 1);
    private static final InboxState GAVE_UP_WITHOUT_PUBLICATION = new InboxState(false, true, 5, 1L, "boom", null);
    private static final AMQP.BasicProperties PLAIN = new AMQP.BasicProperties.Builder().build();

    @Test
    void anotherPublicationOfAnEnvelopeGivenUpOnIsAReplayEvenWhenRedelivered() {
        assertThat(InboxListener.isReplay(GAVE_UP_ON_P1, delivery(true), PLAIN, 2))
                .isTrue();
        assertThat(InboxListener.isReplay(GAVE_UP_ON_P1, delivery(false), PLAIN, 2))
                .isTrue();
    }

    @Test
    void thePublicationGivenUpOnIsNoReplayEvenWhenDeliveredAfresh() {
        assertThat(InboxListener.isReplay(GAVE_UP_ON_P1, delivery(false), PLAIN, 1))
                .isFalse();
    }

    @Test
    void withoutPublicationsAFirstDeliveryThatIsNoRetryIsAReplay() {
        AMQP.BasicProperties retry = new AMQP.BasicProperties.Builder()
                .headers(Map.of(InboxListener.RETRY_HEADER, 2))
                .build();
        assertThat(InboxListener.isReplay(GAVE_UP_WITHOUT_PUBLICATION, delivery(false), PLAIN, null))
                .isTrue();
        assertThat(InboxListener.isReplay(GAVE_UP_WITHOUT_PUBLICATION, delivery(true), PLAIN, null))
                .isFalse();
        assertThat(InboxListener.isReplay(GAVE_UP_WITHOUT_PUBLICATION, delivery(false), retry, null))
                .isFalse();
        assertThat(InboxListener.isReplay(GAVE_UP_ON_P1, delivery(false), PLAIN, null))
                .isTrue();
    }

    @Test
    void onlyASmallNonNegativeIntegerIsAPublication() {
        assertThat(InboxListener.publication(headers(3))).isEqualTo(3);
        assertThat(InboxListener.publication(headers(3L))).isEqualTo(3);
        assertThat(InboxListener.publication(headers(-1))).isNull();
        assertThat(InboxListener.publication(headers(Long.MAX_VALUE))).isNull();
        assertThat(InboxListener.publication(headers("3\u0000"))).isNull();
        assertThat(InboxListener.publication(PLAIN)).isNull();
    }

    private static AMQP.BasicProperties headers(Object publication) {
        return new AMQP.BasicProperties.Builder()
                .headers(Map.of("x-durability-publication", publication))
                .build();
    }

    private static Envelope delivery(boolean redelivered) {
        return new Envelope(1, redelivered, "durability.events", "order.placed");
    }
}
