package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import dev.durability.envelope.EventEnvelope;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A durable test queue bound to the events exchange for some routing keys, consumed into memory. It
 * survives a broker app restart (durable, not exclusive) and re-subscribes when its connection broke;
 * {@link #close()} deletes it.
 */
final class EventQueue implements AutoCloseable {
    static final String EXCHANGE = "durability.events";

    record Message(AMQP.BasicProperties properties, String body) {
        JsonObject json() {
            return Json.createReader(new StringReader(body)).readObject();
        }

        String aggregateId() {
            JsonObject json = json();
            return json.isNull("aggregate_id") ? null : json.getString("aggregate_id");
        }

        String id() {
            return properties.getMessageId();
        }
    }

    private final String name = "it." + UUID.randomUUID();
    private final String exchange;
    private final Map<String, Object> exchangeArguments;
    private final Map<String, Object> arguments;
    private final String[] routingKeys;
    private final ConnectionFactory factory;
    private final List<Address> addresses;
    private final List<Message> received = new ArrayList<>();
    private Connection connection;

    EventQueue(String... routingKeys) throws IOException, TimeoutException {
        this(EXCHANGE, Map.of(), Map.of(), routingKeys);
    }

    /**
     * A queue with these arguments on a broker of the test's own, its events exchange declared with
     * {@code exchangeArguments} as the server declares it: its connections go to the first of {@code addresses}
     * that accepts, in this order.
     */
    EventQueue(
            List<Address> addresses,
            Map<String, Object> exchangeArguments,
            Map<String, Object> arguments,
            String... routingKeys)
            throws IOException, TimeoutException {
        this(Amqp.factory(), addresses, EXCHANGE, exchangeArguments, arguments, routingKeys);
    }

    /**
     * A queue on another events exchange (a server configured with its own, declared here with the same
     * arguments as the server declares it), with these queue arguments.
     */
    EventQueue(
            String exchange,
            Map<String, Object> exchangeArguments,
            Map<String, Object> arguments,
            String... routingKeys)
            throws IOException, TimeoutException {
        this(
                Amqp.factory(),
                List.of(new Address(Coordinates.brokerHost(), Coordinates.brokerPort())),
                exchange,
                exchangeArguments,
                arguments,
                routingKeys);
    }

    private EventQueue(
            ConnectionFactory factory,
            List<Address> addresses,
            String exchange,
            Map<String, Object> exchangeArguments,
            Map<String, Object> arguments,
            String... routingKeys)
            throws IOException, TimeoutException {
        this.factory = factory;
        this.addresses = addresses;
        this.exchange = exchange;
        this.exchangeArguments = exchangeArguments;
        this.arguments = arguments;
        this.routingKeys = routingKeys;
        subscribe();
    }

    /** A queue that refuses every message routed to it: the broker nacks each publish (reject-publish overflow). */
    static EventQueue rejectingEverything(String exchange, String... routingKeys) throws IOException, TimeoutException {
        return new EventQueue(
                exchange, Map.of(), Map.of("x-max-length", 0, "x-overflow", "reject-publish"), routingKeys);
    }

    String name() {
        return name;
    }

    private synchronized void subscribe() throws IOException, TimeoutException {
        // In the order given: the client's own shuffling would pick any node.
        Connection opened = factory.newConnection(
                (java.util.concurrent.ExecutorService) null,
                new AddressResolver() {
                    @Override
                    public List<Address> getAddresses() {
                        return addresses;
                    }

                    @Override
                    public List<Address> maybeShuffle(List<Address> input) {
                        return input;
                    }
                },
                "system-test " + name);
        try {
            consume(opened);
        } catch (IOException | RuntimeException e) {
            opened.abort();
            throw e;
        }
        connection = opened;
    }

    private void consume(Connection opened) throws IOException {
        Channel channel = opened.createChannel();
        channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true, false, exchangeArguments);
        // Expires 10 minutes after its last consumer left, should a crashed run never delete it.
        Map<String, Object> queueArguments = new HashMap<>(arguments);
        queueArguments.put("x-expires", 600_000);
        channel.queueDeclare(name, true, false, false, queueArguments);
        for (String key : routingKeys) {
            channel.queueBind(name, exchange, key);
        }
        channel.basicQos(1000);
        DeliverCallback deliver = (tag, delivery) -> {
            synchronized (received) {
                received.add(
                        new Message(delivery.getProperties(), new String(delivery.getBody(), StandardCharsets.UTF_8)));
            }
        };
        channel.basicConsume(name, true, deliver, tag -> {});
    }

    /** Everything received so far, re-subscribing first if the broker dropped the connection. */
    synchronized List<Message> messages() {
        if (connection == null || !connection.isOpen()) {
            try {
                subscribe();
            } catch (IOException | TimeoutException e) {
                connection = null; // the broker is still away; the next call tries again
            }
        }
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** Waits until every one of these envelopes has arrived, failing with the missing ones after the timeout. */
    void awaitArrivalOf(Collection<EventEnvelope> envelopes, Duration timeout) {
        Set<String> expected = envelopes.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
        await().atMost(timeout)
                .untilAsserted(
                        () -> assertThat(messages().stream().map(Message::id).collect(Collectors.toSet()))
                                .containsAll(expected));
    }

    List<Message> messagesForAggregate(Object aggregateId) {
        return messages().stream()
                .filter(m -> aggregateId.toString().equals(m.aggregateId()))
                .toList();
    }

    @Override
    public synchronized void close() throws Exception {
        if (connection == null || !connection.isOpen()) {
            subscribe();
        }
        try (Channel channel = connection.createChannel()) {
            channel.queueDelete(name);
        }
        connection.close();
    }
}
