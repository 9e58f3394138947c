package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the broker here counts towards a quorum queue's delivery limit, on queues of the test's own: the facts
 * docs/decisions/0089-cluster-and-delivery-limits.md rests on (no limit without {@code x-delivery-limit}, so the
 * dead-letter queue is declared without one; -1 is no "no limit" on 3.x; every hand-back counts). They hold for
 * RabbitMQ 3.x; on 4.x the assumptions skip the 3.x-only facts and the decision says what changed.
 */
class QuorumDeliveryLimitIT {
    private final List<String> queues = new ArrayList<>();
    private Connection connection;
    private Channel channel;
    private String deadLetters;
    private String exchange;

    @BeforeEach
    void deadLetterExchangeWithAQueue() throws Exception {
        connection = Amqp.factory().newConnection("system-test delivery limits");
        channel = connection.createChannel();
        exchange = "it.limits." + UUID.randomUUID();
        channel.exchangeDeclare(exchange, "fanout", false, true, Map.of());
        deadLetters = declare(Map.of());
        channel.queueBind(deadLetters, exchange, "");
    }

    @AfterEach
    void deleteTheQueues() throws Exception {
        for (String queue : queues) {
            channel.queueDelete(queue);
        }
        channel.exchangeDelete(exchange);
        connection.close();
    }

    @Test
    void everyKindOfHandBackCountsAndTheLimitDeadLettersTheNextOne() throws Exception {
        assumeThat(brokerVersion())
                .as("RabbitMQ 4.3 no longer counts basic.nack (decision 0089)")
                .startsWith("3.");
        for (HandBack handBack : HandBack.values()) {
            String queue = declare(Map.of("x-delivery-limit", 3, "x-dead-letter-exchange", exchange));
            publish(queue);
            int deliveries = 0;
            while (handBackOnce(queue, handBack)) {
                deliveries++;
            }
            assertThat(deliveries)
                    .as("deliveries before the limit of 3, handed back by " + handBack)
                    .isEqualTo(4);
        }
        assertThat(depthSoon(deadLetters, HandBack.values().length))
                .as("each dead-lettered at its limit")
                .isEqualTo(HandBack.values().length);
    }

    @Test
    void withoutALimitAMessageSurvivesMoreHandBacksThanFourPointXsDefault() throws Exception {
        assumeThat(brokerVersion())
                .as("RabbitMQ 4.x sets a limit of 20 on every quorum queue")
                .startsWith("3.");
        String queue = declare(Map.of("x-dead-letter-exchange", exchange));
        publish(queue);
        for (int i = 0; i < 25; i++) {
            assertThat(handBackOnce(queue, HandBack.CHANNEL_LOST))
                    .as("delivery " + (i + 1))
                    .isTrue();
        }
        assertThat(depthSoon(deadLetters, 0)).isZero();
    }

    @Test
    void minusOneIsNoUnlimitedButDeadLettersAtTheFirstHandBack() throws Exception {
        assumeThat(brokerVersion()).as("on RabbitMQ 4.x, -1 means no limit").startsWith("3.");
        String queue = declare(Map.of("x-delivery-limit", -1, "x-dead-letter-exchange", exchange));
        publish(queue);
        assertThat(handBackOnce(queue, HandBack.CHANNEL_LOST)).isTrue();
        assertThat(handBackOnce(queue, HandBack.CHANNEL_LOST))
                .as("a second delivery after one hand-back")
                .isFalse();
        assertThat(depthSoon(deadLetters, 1)).isEqualTo(1);
    }

    private enum HandBack {
        NACK_REQUEUE,
        REJECT_REQUEUE,
        CHANNEL_LOST
    }

    /** Takes the queue's message on a channel of its own and hands it back unfinished; false when none came. */
    private boolean handBackOnce(String queue, HandBack handBack) throws Exception {
        Channel taking = connection.createChannel();
        GetResponse taken = null;
        for (int tries = 0; taken == null && tries < 25; tries++) {
            taken = taking.basicGet(queue, false);
            if (taken == null) {
                Thread.sleep(20);
            }
        }
        if (taken != null) {
            switch (handBack) {
                case NACK_REQUEUE -> taking.basicNack(taken.getEnvelope().getDeliveryTag(), false, true);
                case REJECT_REQUEUE -> taking.basicReject(taken.getEnvelope().getDeliveryTag(), true);
                case CHANNEL_LOST -> {}
            }
        }
        taking.abort();
        return taken != null;
    }

    private String declare(Map<String, Object> arguments) throws Exception {
        String queue = "it.limits." + UUID.randomUUID();
        Map<String, Object> quorum = new HashMap<>(arguments);
        quorum.put("x-queue-type", "quorum");
        channel.queueDeclare(queue, true, false, false, quorum);
        queues.add(queue);
        return queue;
    }

    private void publish(String queue) throws Exception {
        channel.confirmSelect();
        channel.basicPublish("", queue, null, "handed back".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        channel.waitForConfirmsOrDie(10_000);
    }

    /** The queue's depth once it is {@code expected}, or what it is after a few seconds. */
    private long depthSoon(String queue, long expected) throws Exception {
        long depth = -1;
        for (int tries = 0; tries < 50 && depth != expected; tries++) {
            depth = channel.queueDeclarePassive(queue).getMessageCount();
            if (depth != expected) {
                Thread.sleep(100);
            }
        }
        return depth;
    }

    private String brokerVersion() {
        return String.valueOf(connection.getServerProperties().get("version"));
    }
}
