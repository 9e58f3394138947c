package dev.durability.bench.broker;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import dev.durability.bench.db.Database;
import dev.durability.bench.load.Envelopes;
import dev.durability.it.Coordinates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The broker the benchmark measures, as the system tests reach it (DURABILITY_BROKER_HOST, ..._PORT). */
public final class Broker {
    /** The library's events exchange (docs/envelope.md). */
    public static final String EVENTS = "durability.events";

    /** What the inbox's defaults give a consumer: one channel, 10 unacknowledged messages. */
    private static final int PREFETCH = 10;

    private Broker() {}

    public static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(Coordinates.brokerHost());
        factory.setPort(Coordinates.brokerPort());
        factory.setUsername(Coordinates.brokerUser());
        factory.setPassword(Coordinates.brokerPassword());
        return factory;
    }

    public static Connection connect(String name) throws IOException {
        try {
            return factory().newConnection(name);
        } catch (TimeoutException e) {
            throw new IOException("RabbitMQ did not answer", e);
        }
    }

    /** A durable queue bound to the events exchange for an event type: every such event is routed and persisted. */
    public static void bind(String queue, String eventType) throws IOException {
        try (Connection connection = connect("bench bind");
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(EVENTS, BuiltinExchangeType.TOPIC, true);
            channel.queueDeclare(queue, true, false, false, null);
            channel.queueBind(queue, EVENTS, eventType);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    public static void delete(String queue) throws IOException {
        try (Connection connection = connect("bench delete");
                Channel channel = connection.createChannel()) {
            channel.queueDelete(queue);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** {@code messages} {@code eventType} envelopes straight into a queue, persistent, confirmed. */
    public static void fill(String queue, String eventType, int messages) throws IOException {
        try (Connection connection = connect("bench fill");
                Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            for (int i = 0; i < messages; i++) {
                String id = Envelopes.newId().toString();
                channel.basicPublish(
                        "",
                        queue,
                        true,
                        MessageProperties.PERSISTENT_BASIC
                                .builder()
                                .contentType("application/json")
                                .messageId(id)
                                .type(eventType)
                                .build(),
                        Envelopes.order(id, UUID.randomUUID().toString(), eventType, i)
                                .getBytes(StandardCharsets.UTF_8));
                if (i % 500 == 499) {
                    channel.waitForConfirmsOrDie(60_000);
                }
            }
            channel.waitForConfirmsOrDie(60_000);
        } catch (TimeoutException | InterruptedException e) {
            throw new IOException("confirms of " + queue + " did not come", e);
        }
    }

    /**
     * Consumes a queue with automatic acknowledgement until closed, as PerfTest's own consumer does its queue: the
     * drain's messages meet the broker under the same conditions as PerfTest's.
     */
    public static AutoCloseable sink(String queue) throws IOException {
        Connection connection = connect("bench sink");
        try {
            connection.createChannel().basicConsume(queue, true, (tag, delivery) -> {}, tag -> {});
        } catch (IOException | RuntimeException e) {
            connection.abort(1_000);
            throw e;
        }
        return () -> connection.close(1_000);
    }

    /**
     * The machine's limit for what an inbox consumer does: a plain consumer (one channel, the inbox's prefetch) that
     * inserts one row into {@code table} and commits per message, then acks. Messages per second, from the first
     * delivery to the last.
     */
    public static double bareConsume(String queue, int messages, String table) throws IOException, SQLException {
        try (Connection connection = connect("bench bare consumer");
                java.sql.Connection db = Database.connect();
                PreparedStatement insert =
                        db.prepareStatement("INSERT INTO " + table + " (id, body) VALUES (?, CAST(? AS jsonb))")) {
            db.setAutoCommit(false);
            Channel channel = connection.createChannel();
            channel.basicQos(PREFETCH);
            CountDownLatch done = new CountDownLatch(messages);
            long[] start = {0};
            channel.basicConsume(
                    queue,
                    false,
                    (tag, delivery) -> {
                        if (start[0] == 0) {
                            start[0] = System.nanoTime();
                        }
                        try {
                            insert.setObject(1, Envelopes.newId());
                            insert.setString(2, new String(delivery.getBody(), StandardCharsets.UTF_8));
                            insert.executeUpdate();
                            db.commit();
                        } catch (SQLException e) {
                            throw new IOException(e);
                        }
                        channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
                        done.countDown();
                    },
                    tag -> {});
            if (!done.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the bare consumer did not finish in 600 s");
            }
            return messages / ((System.nanoTime() - start[0]) / 1e9);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
