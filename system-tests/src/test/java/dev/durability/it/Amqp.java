package dev.durability.it;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/** Publishes raw messages the way any client of the broker could: the tests' hostile or hand-made input. */
final class Amqp implements AutoCloseable {
    private final Connection connection;
    private final Channel channel;

    Amqp() throws IOException, TimeoutException {
        this("/");
    }

    /** A publisher on this virtual host of the broker. */
    Amqp(String virtualHost) throws IOException, TimeoutException {
        ConnectionFactory factory = factory();
        factory.setVirtualHost(virtualHost);
        connection = factory.newConnection("system-test publisher");
        channel = connection.createChannel();
        channel.confirmSelect();
    }

    /** A factory for the broker the tests use; no automatic recovery, so a test sees every outage. */
    static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(Coordinates.brokerHost());
        factory.setPort(Coordinates.brokerPort());
        factory.setUsername(Coordinates.brokerUser());
        factory.setPassword(Coordinates.brokerPassword());
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    Channel channel() {
        return channel;
    }

    /** Publishes persistently and waits for the broker's confirm. */
    void publish(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
            throws IOException, InterruptedException, TimeoutException {
        channel.basicPublish(exchange, routingKey, properties, body);
        channel.waitForConfirmsOrDie(10_000);
    }

    /** An envelope onto the events exchange, as the drain publishes it (routing key = event type). */
    void publishEvent(EventEnvelope envelope) throws IOException, InterruptedException, TimeoutException {
        publish(
                "durability.events",
                envelope.eventType(),
                persistent()
                        .messageId(envelope.id().toString())
                        .type(envelope.eventType())
                        .appId(envelope.sourceService())
                        .build(),
                bytes(envelope));
    }

    /** An envelope's JSON, as the drain publishes it. */
    static byte[] bytes(EventEnvelope envelope) {
        return EnvelopeJson.write(envelope).getBytes(StandardCharsets.UTF_8);
    }

    /** Straight into one queue, through the default exchange. */
    void toQueue(String queue, byte[] body) throws IOException, InterruptedException, TimeoutException {
        publish("", queue, persistent().build(), body);
    }

    static AMQP.BasicProperties.Builder persistent() {
        return new AMQP.BasicProperties.Builder().deliveryMode(2).contentType("application/json");
    }

    static AMQP.BasicProperties.Builder persistent(Map<String, Object> headers) {
        return persistent().headers(headers);
    }

    @Override
    public void close() throws IOException {
        connection.abort();
    }
}
