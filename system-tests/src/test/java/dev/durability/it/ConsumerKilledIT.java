package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two servers consume the shipments queue; one of them commits its deliveries but its acks never reach
 * the broker (a relay holds them back), and then it is killed with SIGKILL. Every delivery it committed
 * comes back to the other server as a dedup hit, and every order has exactly one shipment and one
 * {@code shipment.created}: at-least-once delivery, effects once.
 */
class ConsumerKilledIT {
    private static final String QUEUE = "orders.shipments";
    private static final String QUEUE_LABEL = "queue=\"" + QUEUE + "\"";
    private static final int EVENTS = 40;

    private final URI main = Coordinates.mainServer();
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    @Test
    void deliveriesCommittedByAKilledServerComeBackAsDedupHitsAndEveryOrderShipsOnce() throws Exception {
        try (TcpProxy proxy = new TcpProxy(Coordinates.brokerHost(), Coordinates.brokerPort());
                LibertyServer second = LibertyServer.copyOfMain(
                        "durability-consumer-killed",
                        9195,
                        Map.of(
                                "DURABILITY_INSTANCE_NAME",
                                "it-consumer-killed",
                                "DURABILITY_BROKER_ADDRESSES",
                                "127.0.0.1:" + proxy.port()))) {
            second.start();
            second.awaitApplicationStarted();
            await("both servers consume " + QUEUE)
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> consumers() >= 2);

            double hitsBefore = Http.metric(main, "durability_inbox_dedup_hits_total", QUEUE_LABEL);
            // From here the second server's acks (and everything else it sends) stay in the relay.
            proxy.freezeAfterForwarding(0);
            List<UUID> orders = new ArrayList<>();
            try (Amqp amqp = new Amqp()) {
                for (int i = 0; i < EVENTS; i++) {
                    UUID orderId = UUID.randomUUID();
                    orders.add(orderId);
                    amqp.publishEvent(ShipmentsConsumerIT.orderPlaced(orderId));
                }
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> shipments(orders) == EVENTS);
            double committedBySecond = Http.metric(second.uri(), "durability_inbox_processed_total", QUEUE_LABEL);
            assertThat(committedBySecond)
                    .as("the broker shared the deliveries between the servers")
                    .isPositive();

            second.kill();
            proxy.close(); // the broker sees the second server's connection end and requeues what it never acked

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Http.metric(main, "durability_inbox_dedup_hits_total", QUEUE_LABEL) - hitsBefore
                            >= committedBySecond);
            Thread.sleep(2_000); // another redelivery or handler run would show now
            assertThat(Http.metric(main, "durability_inbox_dedup_hits_total", QUEUE_LABEL) - hitsBefore)
                    .isEqualTo(committedBySecond);
            for (UUID order : orders) {
                assertThat(tables.shipmentsForOrder(order))
                        .as("shipments of order %s", order)
                        .isEqualTo(1);
                assertThat(outbox.count(
                                "event_type = 'shipment.created' AND envelope->'payload'->>'order_id' = ?",
                                order.toString()))
                        .as("shipment.created of order %s", order)
                        .isEqualTo(1);
            }
        }
    }

    private long shipments(List<UUID> orders) throws Exception {
        return tables.count("demo_shipments", "order_id = ANY (?)", (Object) orders.toArray(new UUID[0]));
    }

    private static int consumers() throws Exception {
        try (Amqp amqp = new Amqp()) {
            Channel channel = amqp.channel();
            return channel.queueDeclarePassive(QUEUE).getConsumerCount();
        }
    }
}
