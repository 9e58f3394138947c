package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A server whose poll interval is ten minutes still publishes at once. An order placed through its API (staged
 * by OutboxStager) wakes its drain in the process after the commit, and sends the database no notification: a
 * NOTIFY would take PostgreSQL's cluster-wide notify lock through the commit (docs/decisions/0082). A row
 * inserted by SQL notifies the server's LISTEN connection, which wakes the drain; when that connection is
 * killed, the server listens again and the next such row is woken for too; when its session stops answering
 * without closing, the heartbeat gives it up and the server listens again.
 */
class DrainWakeUpIT {
    private static final String SCHEMA = "durability_wakeup";
    private static final String CHANNEL = "durability_outbox_" + SCHEMA;

    @Test
    void stagedEventsWakeTheDrainLongBeforeItsPollAndOnlySqlInsertsNotify() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        OutboxTable outbox = new OutboxTable(SCHEMA);
        try (EventQueue orders = new EventQueue("order.placed");
                EventQueue inserted = new EventQueue("wakeup.inserted");
                Connection listening = OutboxTable.connect();
                LibertyServer server = LibertyServer.copyOfMain(
                        "durability-wakeup",
                        9196,
                        Map.of(
                                "DB_SCHEMA", SCHEMA,
                                "DURABILITY_INSTANCE_NAME", "it-wakeup",
                                "DURABILITY_OUTBOX_POLL_INTERVAL_MS", "600000"))) {
            server.start();
            server.awaitApplicationStarted();
            await("the server's LISTEN connection")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> listeners() == 1);
            try (Statement s = listening.createStatement()) {
                s.execute("LISTEN " + CHANNEL);
            }
            PGConnection notifications = listening.unwrap(PGConnection.class);
            notifications.getNotifications(1); // whatever the start staged

            String placed = placeOrder(server);
            // The first poll is ten minutes away: only the in-process wake-up can have woken the drain.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !orders.messagesForAggregate(placed).isEmpty());
            assertThat(received(notifications, 500))
                    .as("notifications of a transaction that staged through OutboxStager")
                    .isEmpty();

            EventEnvelope first = OutboxTable.envelopes("wakeup.inserted", 1).get(0);
            outbox.seed(List.of(first));
            assertThat(received(notifications, 5_000))
                    .as("notifications of an SQL insert")
                    .hasSize(1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            !inserted.messagesForAggregate(first.aggregateId()).isEmpty());

            assertThat(terminateListener()).isEqualTo(1);
            await("listening again").atMost(Duration.ofSeconds(30)).until(() -> listeners() == 1);
            EventEnvelope second = OutboxTable.envelopes("wakeup.inserted", 1).get(0);
            outbox.seed(List.of(second));
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            !inserted.messagesForAggregate(second.aggregateId()).isEmpty());
            assertThat(server.messagesLog()).contains("Outbox staging notifications lost");

            // A session that stops answering without closing (its host lost, a failover): the backend process
            // frozen keeps the socket open and silent, as a black hole would.
            int frozen = listenerPid();
            Commands.run(List.of("kill", "-STOP", Integer.toString(frozen)), Set.of(0));
            try {
                EventEnvelope third =
                        OutboxTable.envelopes("wakeup.inserted", 1).get(0);
                outbox.seed(List.of(third));
                // Its notification goes to the frozen session; the poll is ten minutes away. The heartbeat (every
                // 10 s, answered within 10 s) gives the session up and listens again, which wakes the drain.
                await("a row staged while the listener was silent, published once it was given up")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> !inserted.messagesForAggregate(third.aggregateId())
                                .isEmpty());
                assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                                + "'durability-listen it-wakeup' AND pid <> " + frozen))
                        .as("a new session listens")
                        .isEqualTo(1);
            } finally {
                Commands.run(List.of("kill", "-CONT", Integer.toString(frozen)), Set.of(0, 1));
            }
            EventEnvelope fourth = OutboxTable.envelopes("wakeup.inserted", 1).get(0);
            outbox.seed(List.of(fourth));
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            !inserted.messagesForAggregate(fourth.aggregateId()).isEmpty());
        }
    }

    /**
     * With {@code durability.outbox.wake-on-staging=false} an order's commit wakes nobody: its event waits for the
     * drain's poll (ten minutes away) until a row inserted by SQL notifies the LISTEN connection, whose round
     * drains both. What the benchmark's API staging rows without a wake-up measure.
     */
    @Test
    void withoutTheWakeUpOnStagingAStagedEventWaitsForTheDrainsNextRound() throws Exception {
        String schema = SCHEMA + "_off";
        OutboxTable.dropSchema(schema);
        OutboxTable outbox = new OutboxTable(schema);
        try (EventQueue orders = new EventQueue("order.placed");
                EventQueue inserted = new EventQueue("wakeup.inserted");
                LibertyServer server = LibertyServer.copyOfMain(
                        "durability-wakeup-off",
                        9185,
                        Map.of(
                                "DB_SCHEMA", schema,
                                "DURABILITY_INSTANCE_NAME", "it-wakeup-off",
                                "DURABILITY_OUTBOX_POLL_INTERVAL_MS", "600000",
                                "DURABILITY_OUTBOX_WAKE_ON_STAGING", "false"))) {
            server.start();
            server.awaitApplicationStarted();
            await("the server's LISTEN connection")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> count("SELECT count(*) FROM pg_stat_activity"
                                    + " WHERE application_name = 'durability-listen it-wakeup-off'")
                            == 1);

            String placed = placeOrder(server);
            // Woken, the drain publishes within a few hundred milliseconds (the test above).
            Thread.sleep(3_000);
            assertThat(orders.messagesForAggregate(placed))
                    .as("the order's event three seconds after its commit, with no wake-up and no poll due")
                    .isEmpty();

            EventEnvelope row = OutboxTable.envelopes("wakeup.inserted", 1).get(0);
            outbox.seed(List.of(row));
            await("the SQL row's notification wakes a round that drains the order's event too")
                    .atMost(Duration.ofSeconds(20))
                    .until(() ->
                            !inserted.messagesForAggregate(row.aggregateId()).isEmpty()
                                    && !orders.messagesForAggregate(placed).isEmpty());
        }
        OutboxTable.dropSchema(schema);
    }

    /** The backend process of the server's LISTEN session (PostgreSQL runs on this machine in the build). */
    private static int listenerPid() throws Exception {
        return count("SELECT max(pid) FROM pg_stat_activity WHERE application_name = 'durability-listen it-wakeup'");
    }

    private static String placeOrder(LibertyServer server) {
        HttpResponse<String> response =
                Http.postJson(server.uri(), "/api/orders", "{\"customer\":\"ada\",\"sku\":\"bell\",\"quantity\":1}");
        assertThat(response.statusCode()).isEqualTo(201);
        return Http.json(response).getString("id");
    }

    /** The notifications on the channel within this many milliseconds. */
    private static List<PGNotification> received(PGConnection connection, int millis) throws Exception {
        PGNotification[] received = connection.getNotifications(millis);
        return received == null ? List.of() : List.of(received);
    }

    private static int listeners() throws Exception {
        return count("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'durability-listen it-wakeup'");
    }

    private static int terminateListener() throws Exception {
        return count("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                + "WHERE application_name = 'durability-listen it-wakeup') AS killed");
    }

    private static int count(String sql) throws Exception {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
