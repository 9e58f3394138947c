package dev.durability.bench.broker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A queue of its own bound to an event type, consumed with automatic acknowledgement, noting when (nanoTime) each
 * message arrived: by its envelope id, or by its aggregate id (an order's id, which the API's answer names).
 */
public final class Arrivals implements AutoCloseable {
    private final Connection connection;
    private final Channel channel;
    private final String queue;
    private final Map<String, Long> arrived = new ConcurrentHashMap<>();

    /** {@code key} finds a message's id in its body; none: the id is the message's own. */
    private Arrivals(Connection connection, String queue, String eventType, Pattern key) throws IOException {
        this.connection = connection;
        this.queue = queue;
        this.channel = connection.createChannel();
        channel.queueDeclare(queue, true, false, false, null);
        channel.queuePurge(queue);
        channel.queueBind(queue, Broker.EVENTS, eventType);
        channel.basicQos(1000);
        channel.basicConsume(queue, true, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                long now = System.nanoTime();
                if (key != null) {
                    Matcher m = key.matcher(new String(body, StandardCharsets.UTF_8));
                    if (m.find()) {
                        arrived.putIfAbsent(m.group(1), now);
                    }
                } else {
                    arrived.putIfAbsent(properties.getMessageId(), now);
                }
            }
        });
    }

    /** Arrivals of {@code eventType} by envelope id. */
    public static Arrivals byEnvelopeId(String queue, String eventType) throws IOException {
        return opened(queue, eventType, null);
    }

    /** Arrivals of {@code eventType} by the id in the envelope's field {@code field} (aggregate_id, order_id). */
    public static Arrivals byField(String queue, String eventType, String field) throws IOException {
        return opened(queue, eventType, Pattern.compile("\"" + field + "\"\\s*:\\s*\"([0-9a-f-]{36})\""));
    }

    private static Arrivals opened(String queue, String eventType, Pattern key) throws IOException {
        Connection connection = Broker.connect("bench arrivals");
        try {
            return new Arrivals(connection, queue, eventType, key);
        } catch (IOException | RuntimeException e) {
            connection.abort(1_000);
            throw e;
        }
    }

    /** Waits up to a minute for every id committed to arrive. */
    public void awaitAll(Map<String, Long> committed) throws InterruptedException {
        long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < wait && !arrived.keySet().containsAll(committed.keySet())) {
            Thread.sleep(100);
        }
    }

    /** When the message of this id arrived (nanoTime), if it did. */
    public Long at(String id) {
        return arrived.get(id);
    }

    /** The lags (arrival minus commit, nanoseconds) of the ids committed that arrived, sorted. */
    public List<Long> lags(Map<String, Long> committed) {
        List<Long> lags = new ArrayList<>();
        committed.forEach((id, at) -> {
            Long arrival = arrived.get(id);
            if (arrival != null) {
                lags.add(Math.max(0, arrival - at));
            }
        });
        Collections.sort(lags);
        return lags;
    }

    @Override
    public void close() throws IOException {
        try {
            channel.queueDelete(queue);
        } finally {
            connection.abort(1_000);
        }
    }
}
