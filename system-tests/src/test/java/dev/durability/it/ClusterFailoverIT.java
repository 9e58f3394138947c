package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Address;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * A RabbitMQ cluster of three nodes of the test's own (the machine's broker stays out of it) under a server whose
 * broker address list names all three, with the shipments consumer's queue and the dead-letter queue as quorum queues
 * ({@code durability.inbox.queue-type}, {@code durability.dead-letter.queue-type}). Under load, the node that leads
 * those queues and holds both of the server's connections is killed with SIGKILL: the drain and the consumer resume
 * on the surviving nodes within {@link #RESUME}, and the accounting of {@link FaultAccounting} holds: nothing lost, no
 * order created or shipped twice, every duplicate delivery a publication the outbox counted
 * (docs/decisions/0089-cluster-and-delivery-limits.md, docs/reliability.md).
 */
class ClusterFailoverIT {
    private static final String SCHEMA = "durability_cluster";
    private static final String INSTANCE = "it-cluster";
    private static final List<Integer> PORTS = List.of(5681, 5682, 5683);
    /**
     * The stated bound on resuming after the node is lost, for the drain (an order placed after the kill published)
     * and for the consumer (such an order shipped): the lost connections are noticed at once (the peer's socket
     * closes), the consumer is supervised again a second later and the drain at its next poll (1 s); the queues'
     * survivors elect a new leader within seconds. The rest is room for a busy two-core machine.
     */
    private static final Duration RESUME = Duration.ofSeconds(30);

    private static final Duration PATIENCE = Duration.ofSeconds(120);
    private static final int CLIENTS = 4;
    /** The events exchange's alternate exchange, and its queue's name. */
    private static final String ALTERNATE = "orders.unrouted";
    /** Orders shipped before the kill, and again of those placed after it: the load runs on both sides of it. */
    private static final int SHIPPED_EACH_SIDE = 100;

    @Test
    void theNodeThatLeadsTheQueuesAndHoldsTheConnectionsIsKilledUnderLoad() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        // Booted side by side: one after the other would take three times as long.
        try (RabbitmqNode a = RabbitmqNode.launch("durability-cluster-a", 25681, listener(0));
                RabbitmqNode b = RabbitmqNode.launch("durability-cluster-b", 25682, listener(1));
                RabbitmqNode c = RabbitmqNode.launch("durability-cluster-c", 25683, listener(2))) {
            a.awaitStarted();
            b.awaitStarted();
            c.awaitStarted();
            b.joinCluster(a);
            c.joinCluster(a);
            // Every connection of the server lands on a while the others refuse: its queues' leaders are a too (a
            // quorum queue's first leader is the declaring client's node), and so killing a takes all of it.
            b.suspendListeners();
            c.suspendListeners();
            try (LibertyServer server = clusterServer()) {
                server.start();
                server.awaitApplicationStarted();
                await("the server's publishing and consuming connections, both on node a")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> a.connectionPorts("orders@" + INSTANCE), ports -> ports.size() >= 2);
                assertThat(a.connectionPorts("orders@" + INSTANCE)).containsOnly(PORTS.get(0));
                b.resumeListeners();
                c.resumeListeners();
                for (String queue : List.of("orders.shipments", "orders.dead-letters", ALTERNATE)) {
                    assertThat(a.typeOf(queue)).as(queue).isEqualTo("quorum");
                    assertThat(a.leaderOf(queue)).as("leader of " + queue).isEqualTo(a.name());
                }
                killTheLeaderUnderLoad(server, a, b);
            }
        }
    }

    private static void killTheLeaderUnderLoad(LibertyServer server, RabbitmqNode leader, RabbitmqNode survivor)
            throws Exception {
        String tag = "cluster-" + Long.toHexString(System.nanoTime());
        ConsumerTables tables = new ConsumerTables(SCHEMA);
        DoubleSupplier recoveries = Http.metricSince(List.of(server.uri()), "durability_outbox_lease_recoveries_total");
        // The test's own view of what was published: a quorum queue led by a survivor, reached through it.
        try (EventQueue placed = new EventQueue(
                        List.of(new Address("127.0.0.1", PORTS.get(1))),
                        Map.of("alternate-exchange", ALTERNATE),
                        Map.of("x-queue-type", "quorum"),
                        "order.placed");
                OrderLoad load = new OrderLoad(tag, List.of(server.uri()), CLIENTS)) {
            await("orders placed, published and shipped under load before the kill")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> tables.count(
                                    "demo_shipments",
                                    "order_id IN (SELECT id FROM " + SCHEMA
                                            + ".demo_orders WHERE customer LIKE ? || '-%')",
                                    tag)
                            >= SHIPPED_EACH_SIDE);
            OffsetDateTime killedAt = databaseNow();
            long killed = System.nanoTime();
            leader.kill();

            await("the drain publishing an order placed after the kill")
                    .atMost(RESUME)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tables.count(
                                    "event_outbox",
                                    "event_type = 'order.placed' AND created_at > ? AND published_at IS NOT NULL",
                                    killedAt)
                            > 0);
            Duration drainResumed = Duration.ofNanos(System.nanoTime() - killed);
            await("the consumer shipping an order placed after the kill")
                    .atMost(RESUME)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tables.count(
                                    "demo_shipments",
                                    "order_id IN (SELECT id FROM " + SCHEMA + ".demo_orders WHERE placed_at > ?)",
                                    killedAt)
                            > 0);
            Duration consumerResumed = Duration.ofNanos(System.nanoTime() - killed);
            System.out.printf(
                    "ClusterFailoverIT: node %s killed; drain resumed after %d ms, consumer after %d ms%n",
                    leader.name(), drainResumed.toMillis(), consumerResumed.toMillis());
            // Not one order through, but the flow back: the load goes on until as many orders placed after the
            // kill were shipped as before it.
            await("orders placed after the kill shipped as steadily as before it")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> tables.count(
                                    "demo_shipments",
                                    "order_id IN (SELECT id FROM " + SCHEMA + ".demo_orders WHERE placed_at > ?)",
                                    killedAt)
                            >= SHIPPED_EACH_SIDE);

            load.stop(Duration.ofSeconds(30));
            assertThat(load.refusals())
                    .as("answers a careful client could not retry")
                    .isEmpty();
            FaultAccounting a = FaultAccounting.settle(
                    SCHEMA,
                    "the RabbitMQ node leading the queues and holding the connections killed (three-node cluster)",
                    load,
                    placed,
                    0,
                    recoveries,
                    PATIENCE);
            a.assertHoldsTheContract();
            assertThat(survivor.leaderOf("orders.shipments"))
                    .as("the shipments queue's new leader")
                    .isNotEqualTo(leader.name());
        }
    }

    /** A server on a schema of its own whose broker is the cluster, consuming, with quorum queues by configuration. */
    private static LibertyServer clusterServer() throws Exception {
        return LibertyServer.copyOfMain(
                "durability-cluster",
                9171,
                Map.of(
                        "DB_SCHEMA",
                        SCHEMA,
                        "DURABILITY_INSTANCE_NAME",
                        INSTANCE,
                        "DURABILITY_BROKER_ADDRESSES",
                        String.join(
                                ",",
                                PORTS.stream().map(port -> "127.0.0.1:" + port).toList()),
                        // Its own broker: the queues it consumes are nobody else's.
                        "DURABILITY_INBOX_ENABLED",
                        "true",
                        "DURABILITY_INBOX_QUEUE_TYPE",
                        "quorum",
                        "DURABILITY_DEAD_LETTER_QUEUE_TYPE",
                        "quorum",
                        // What no queue is bound for is kept on the cluster too.
                        "DURABILITY_BROKER_ALTERNATE_EXCHANGE",
                        ALTERNATE,
                        "DURABILITY_BROKER_ALTERNATE_QUEUE_TYPE",
                        "quorum"));
    }

    /** Node {@code i}'s rabbitmq.conf: its own AMQP port on the loopback interface. */
    private static List<String> listener(int i) {
        return List.of("listeners.tcp.local = 127.0.0.1:" + PORTS.get(i));
    }

    private static OffsetDateTime databaseNow() throws Exception {
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }
}
