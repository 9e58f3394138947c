package dev.durability.inbox.control;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.broker.control.TopologyRefused;
import dev.durability.deadletter.control.DeadLetterRoutingKey;
import dev.durability.inbox.InboxConsumer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Declares what consuming needs, idempotently, every time a consumer (re)starts: the events exchange,
 * the dead-letter exchange (durable topic), each consumer's durable queue dead-lettering into it under
 * {@code dlq.<queue>} and bound to its event types, the consumer's delay queues (one per backoff step,
 * each returning its messages to the queue when their wait is over), and the service's dead-letter
 * queue bound with {@code dlq.#}. An existing queue with other arguments, or an operation the broker user
 * lacks a permission for, is refused by the broker; that refusal is a {@link TopologyRefused} naming the
 * queue, the broker's reason and, for a permission, the one needed.
 */
@ApplicationScoped
public class QueueTopology {
    @Inject
    BrokerConfig broker;

    @Inject
    BrokerConnection connection;

    @Inject
    InboxConfig config;

    /** Declares the consumer's queues on a channel of its own (a refusal closes the channel). */
    public void declareConsumer(Channel channel, ConsumerDeclaration consumer) throws IOException {
        connection.declareTopology(channel);
        declareDeadLetterExchange(channel);
        declareQueue(channel, consumer.queue(), consumerQueueArguments(consumer));
        for (String eventType : consumer.eventTypes()) {
            bind(channel, consumer.queue(), broker.eventsExchange(), eventType);
        }
        RetryPolicy policy = config.retryPolicy(consumer);
        TreeSet<Long> delays = new TreeSet<>();
        for (int attempt = 1; attempt < policy.maxAttempts(); attempt++) {
            delays.add(policy.delayAfter(attempt).toMillis());
        }
        for (long delay : delays) {
            Map<String, Object> arguments = new HashMap<>(typeArguments(config.queueType(consumer)));
            arguments.put("x-message-ttl", delay);
            // Expired messages go back to the consumer's queue through the default exchange.
            arguments.put("x-dead-letter-exchange", "");
            arguments.put("x-dead-letter-routing-key", consumer.queue());
            declareQueue(channel, RetryPolicy.delayQueue(consumer.queue(), Duration.ofMillis(delay)), arguments);
        }
    }

    /**
     * The service's dead-letter queue, receiving every consumer queue's dead letters; a quorum queue when
     * {@code quorum}, so it survives the loss of a cluster node. It gets no {@code x-delivery-limit}: its consumer
     * never hands a dead letter back, and on RabbitMQ 3.10 to 3.13 no limit means none, while -1 (4.x's "none")
     * dead-letters at the first hand-back (docs/decisions/0089-cluster-and-delivery-limits.md).
     */
    public void declareDeadLetterQueue(Channel channel, String queue, boolean quorum) throws IOException {
        declareDeadLetterExchange(channel);
        declareQueue(channel, queue, quorum ? Map.of("x-queue-type", "quorum") : Map.of());
        bind(channel, queue, broker.deadLetterExchange(), DeadLetterRoutingKey.ALL);
    }

    /** The routing key of a consumer queue's dead letters. */
    public static String deadLetterKey(String queue) {
        return DeadLetterRoutingKey.of(queue);
    }

    private void declareDeadLetterExchange(Channel channel) throws IOException {
        String exchange = broker.deadLetterExchange();
        TopologyRefused.refusedAccessNamed(
                "declare the dead-letter exchange '" + exchange + "'",
                "configure on exchange '" + exchange + "'",
                () -> channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true));
    }

    private static void bind(Channel channel, String queue, String exchange, String routingKey) throws IOException {
        TopologyRefused.refusedAccessNamed(
                "bind queue '" + queue + "' to exchange '" + exchange + "'",
                "write on queue '" + queue + "' and read on exchange '" + exchange + "'",
                () -> channel.queueBind(queue, exchange, routingKey));
    }

    /**
     * The permissions declaring a queue with these arguments needs: a dead-letter exchange (the empty name is
     * the default exchange, {@code amq.default} to the broker's permissions) makes the broker check that this
     * user could read the queue and write to that exchange itself.
     */
    static String permissionsToDeclare(String queue, Map<String, Object> arguments) {
        Object deadLetterExchange = arguments.get("x-dead-letter-exchange");
        if (deadLetterExchange == null) {
            return "configure on queue '" + queue + "'";
        }
        String exchange = deadLetterExchange.toString().isEmpty() ? "amq.default" : deadLetterExchange.toString();
        return "configure and read on queue '" + queue + "' and write on its dead-letter exchange '" + exchange + "'";
    }

    Map<String, Object> consumerQueueArguments(ConsumerDeclaration consumer) {
        InboxConsumer.QueueType type = config.queueType(consumer);
        Map<String, Object> arguments = new HashMap<>(typeArguments(type));
        arguments.put("x-dead-letter-exchange", broker.deadLetterExchange());
        arguments.put("x-dead-letter-routing-key", deadLetterKey(consumer.queue()));
        if (type == InboxConsumer.QueueType.QUORUM) {
            // A backstop for deliveries that never reach an outcome (a consumer that crashes on them): every
            // outcome the inbox records is counted by its own attempts, which ack and re-publish and so never count
            // here; beyond the limit the broker dead-letters (docs/decisions/0089-cluster-and-delivery-limits.md).
            arguments.put("x-delivery-limit", config.quorumDeliveryLimit());
        }
        return arguments;
    }

    private static Map<String, Object> typeArguments(InboxConsumer.QueueType type) {
        if (type == InboxConsumer.QueueType.QUORUM) {
            // At-least-once dead-lettering: the broker keeps a dead letter until the DLX's queue confirmed
            // it, which needs reject-publish overflow (docs/decisions/0027-queue-types.md).
            return Map.of(
                    "x-queue-type", "quorum",
                    "x-dead-letter-strategy", "at-least-once",
                    "x-overflow", "reject-publish");
        }
        return Map.of();
    }

    private static void declareQueue(Channel channel, String queue, Map<String, Object> arguments) throws IOException {
        try {
            TopologyRefused.refusedAccessNamed(
                    "declare queue '" + queue + "'",
                    permissionsToDeclare(queue, arguments),
                    () -> channel.queueDeclare(queue, true, false, false, arguments));
        } catch (IOException e) {
            String reason = TopologyRefused.preconditionFailed(e).orElseThrow(() -> e);
            throw new TopologyRefused(
                    "RabbitMQ refused to declare queue '" + queue + "' with the arguments "
                            + new java.util.TreeMap<>(arguments) + " this service needs: " + reason
                            + ". The queue exists with other arguments (an older version, another service, or a hand-made "
                            + "queue): move its messages and delete it, or rename the consumer's queue",
                    e);
        }
    }
}
