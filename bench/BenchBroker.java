import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;

import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's broker side (the broker's publish ceiling is RabbitMQ PerfTest's, bench/run).
 * {@code bind}/{@code delete}: a durable queue on
 * the events exchange for the drained event type, so every drained message is routed and persisted.
 * {@code fill}: {@code order.placed} envelopes straight into a queue, confirmed. {@code sink}: consumes a queue
 * (automatic acks) until killed, as PerfTest's own consumer does for its queue, so the drain's messages meet the
 * broker under the same conditions as PerfTest's. {@code bare-consume}: the
 * machine's ceiling for what an inbox consumer does, a plain consumer (one channel, prefetch 10, as the
 * inbox's defaults) that inserts one row and commits per message, then acks; prints messages/s.
 * Usage: java -cp amqp-client.jar:slf4j-api.jar BenchBroker.java HOST PORT bind|delete QUEUE [ROUTING_KEY]
 *        java -cp ... BenchBroker.java HOST PORT fill QUEUE MESSAGES
 *        java -cp ... BenchBroker.java HOST PORT sink QUEUE
 *        java -cp ...:postgresql.jar BenchBroker.java HOST PORT bare-consume QUEUE MESSAGES JDBC_URL USER PASSWORD
 */
public class BenchBroker {
    public static void main(String[] args) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(args[0]);
        factory.setPort(Integer.parseInt(args[1]));
        switch (args[2]) {
            case "bind" -> {
                try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
                    channel.exchangeDeclare("durability.events", BuiltinExchangeType.TOPIC, true);
                    channel.queueDeclare(args[3], true, false, false, null);
                    channel.queueBind(args[3], "durability.events", args[4]);
                }
            }
            case "delete" -> {
                try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
                    channel.queueDelete(args[3]);
                }
            }
            case "fill" -> fill(factory, args[3], Integer.parseInt(args[4]));
            case "sink" -> sink(factory, args[3]);
            case "bare-consume" -> bareConsume(factory, args[3], Integer.parseInt(args[4]), args[5], args[6],
                    args.length > 7 ? args[7] : "");
            default -> throw new IllegalArgumentException("unknown command " + args[2]);
        }
    }

    /** Envelope ids as the library makes them (UUIDv7), for the consumer's inbox and the limit's table alike. */
    private static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    private static void fill(ConnectionFactory factory, String queue, int messages) throws Exception {
        try (Connection connection = factory.newConnection("bench fill");
             Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            for (int i = 0; i < messages; i++) {
                UUID id = IDS.generate();
                String envelope = "{\"id\":\"" + id + "\",\"event_type\":\"order.placed\",\"source_service\":\"bench\","
                        + "\"aggregate_id\":null,\"occurred_at\":\"" + Instant.now() + "\",\"schema_version\":1,"
                        + "\"correlation_id\":\"" + id + "\",\"causation_id\":null,\"payload\":{\"order_id\":\""
                        + UUID.randomUUID() + "\",\"customer\":\"bench\",\"sku\":\"book-" + i + "\",\"quantity\":1}}";
                channel.basicPublish("", queue, true, MessageProperties.PERSISTENT_BASIC.builder()
                        .contentType("application/json").messageId(id.toString()).type("order.placed").build(),
                        envelope.getBytes(StandardCharsets.UTF_8));
                if (i % 500 == 499) {
                    channel.waitForConfirmsOrDie(60_000);
                }
            }
            channel.waitForConfirmsOrDie(60_000);
        }
    }

    private static void sink(ConnectionFactory factory, String queue) throws Exception {
        Connection connection = factory.newConnection("bench sink");
        connection.createChannel().basicConsume(queue, true, (tag, delivery) -> {}, tag -> {});
        // Killed by bench/run when it ends: the connection closes with a close frame, not a dropped socket the
        // broker logs as an error.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                connection.close(1_000);
            } catch (Exception e) {
                // The process ends either way.
            }
        }));
        new CountDownLatch(1).await();
    }

    private static void bareConsume(ConnectionFactory factory, String queue, int messages, String url, String user,
                                    String password) throws Exception {
        try (Connection connection = factory.newConnection("bench bare consumer");
             java.sql.Connection db = DriverManager.getConnection(url, user, password)) {
            db.setAutoCommit(false);
            PreparedStatement insert = db.prepareStatement(
                    "INSERT INTO durability_bench_raw.consumed (id, body) VALUES (?, CAST(? AS jsonb))");
            Channel channel = connection.createChannel();
            channel.basicQos(10);
            CountDownLatch done = new CountDownLatch(messages);
            long[] start = {0};
            channel.basicConsume(queue, false, (tag, delivery) -> {
                if (start[0] == 0) {
                    start[0] = System.nanoTime();
                }
                try {
                    insert.setObject(1, IDS.generate());
                    insert.setString(2, new String(delivery.getBody(), StandardCharsets.UTF_8));
                    insert.executeUpdate();
                    db.commit();
                } catch (java.sql.SQLException e) {
                    throw new java.io.IOException(e);
                }
                channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
                done.countDown();
            }, tag -> {});
            if (!done.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("bare consumer did not finish in 600 s");
            }
            System.out.printf("%.0f%n", messages / ((System.nanoTime() - start[0]) / 1e9));
        }
    }
}
