import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The benchmark's broker side. {@code publish}: the broker's own ceiling for what the drain does,
 * persistent messages of an envelope's size to a durable queue with publisher confirms awaited once
 * per batch of the drain's size; prints messages/s. {@code bind}/{@code delete}: a durable queue on
 * the events exchange for the drained event type, so every drained message is routed and persisted.
 * Usage: java -cp amqp-client.jar:slf4j-api.jar BenchBroker.java HOST PORT publish MESSAGES BATCH BYTES
 *        java -cp ... BenchBroker.java HOST PORT bind|delete QUEUE [ROUTING_KEY]
 */
public class BenchBroker {
    public static void main(String[] args) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(args[0]);
        factory.setPort(Integer.parseInt(args[1]));
        switch (args[2]) {
            case "publish" -> publish(factory, Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
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
            default -> throw new IllegalArgumentException("unknown command " + args[2]);
        }
    }

    private static void publish(ConnectionFactory factory, int messages, int batch, int bytes) throws Exception {
        byte[] body = "x".repeat(bytes).getBytes(StandardCharsets.UTF_8);
        String exchange = "bench.raw." + UUID.randomUUID();
        String queue = exchange + ".q";
        try (Connection connection = factory.newConnection("bench raw confirmed publish");
             Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true, true, null);
            channel.queueDeclare(queue, true, false, false, null);
            channel.queueBind(queue, exchange, "#");
            channel.confirmSelect();
            AMQP.BasicProperties properties = MessageProperties.PERSISTENT_BASIC.builder()
                    .contentType("application/json").build();
            long start = System.nanoTime();
            for (int sent = 0; sent < messages; ) {
                int n = Math.min(batch, messages - sent);
                for (int i = 0; i < n; i++) {
                    channel.basicPublish(exchange, "bench.raw", true, properties, body);
                }
                channel.waitForConfirmsOrDie(60_000);
                sent += n;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            channel.queueDelete(queue);
            channel.exchangeDelete(exchange);
            System.out.printf("%.0f%n", messages / seconds);
        }
    }
}
