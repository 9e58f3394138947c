package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server whose poll interval is ten minutes still publishes a placed order's event at once: the commit
 * notifies its LISTEN connection, which wakes the drain. When that connection is killed, the server
 * listens again and the next order is woken for too.
 */
class DrainWakeUpIT {
    private static final String SCHEMA = "durability_wakeup";

    @Test
    void aStagedEventWakesTheDrainLongBeforeItsPollAndAfterTheListenConnectionWasKilled() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        try (EventQueue queue = new EventQueue("order.placed");
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

            String first = placeOrder(server);
            // The first poll is ten minutes away: only the notification can have woken the drain.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !queue.messagesForAggregate(first).isEmpty());

            assertThat(terminateListener()).isEqualTo(1);
            await("listening again").atMost(Duration.ofSeconds(30)).until(() -> listeners() == 1);
            String second = placeOrder(server);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !queue.messagesForAggregate(second).isEmpty());
            assertThat(server.messagesLog()).contains("Outbox staging notifications lost");
        }
    }

    private static String placeOrder(LibertyServer server) {
        HttpResponse<String> response =
                Http.postJson(server.uri(), "/api/orders", "{\"customer\":\"ada\",\"sku\":\"bell\",\"quantity\":1}");
        assertThat(response.statusCode()).isEqualTo(201);
        return Http.json(response).getString("id");
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
