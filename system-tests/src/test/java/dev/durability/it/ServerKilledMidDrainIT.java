package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server killed with SIGKILL after it claimed rows and before it stamped them: after the lease those
 * rows are claimed again and published. None is lost.
 */
class ServerKilledMidDrainIT {
    private static final String SCHEMA = "durability_crash";

    @Test
    void rowsClaimedByAKilledServerArePublishedAfterTheLease() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        OutboxTable outbox = new OutboxTable(SCHEMA);
        String eventType = "crash.recovered_" + Long.toHexString(System.nanoTime());
        try (TcpProxy proxy = new TcpProxy(Coordinates.brokerHost(), Coordinates.brokerPort());
                EventQueue queue = new EventQueue(eventType);
                LibertyServer server = LibertyServer.copyOfMain(
                        "durability-crash",
                        9190,
                        Map.of(
                                "DB_SCHEMA", SCHEMA,
                                "DURABILITY_INSTANCE_NAME", "it-crash",
                                "DURABILITY_BROKER_ADDRESSES", "127.0.0.1:" + proxy.port(),
                                "DURABILITY_OUTBOX_LEASE_SECONDS", "30",
                                "DURABILITY_OUTBOX_CONFIRM_TIMEOUT_MS", "5000",
                                "DURABILITY_OUTBOX_STATEMENT_TIMEOUT_MS", "2000",
                                "DURABILITY_OUTBOX_STAMP_TIMEOUT_MS", "3000",
                                "DURABILITY_BROKER_CONNECT_TIMEOUT_MS", "1000"))) {
            server.start();
            server.awaitApplicationStarted();
            // A fresh, idle server already reports its outbox gauges: alert rules see them from the start.
            // (The metrics endpoint may answer a moment after the application reports it started.)
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(
                                    Http.get(server.uri(), "/metrics").body())
                            .contains("durability_outbox_depth{", "durability_outbox_unpublished_beyond_grace{"));

            // One event first, so the server holds an open broker connection when the network freezes.
            List<EventEnvelope> warmUp = OutboxTable.envelopes(eventType, 1);
            outbox.seed(warmUp);
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.messages().size() == 1);

            // Frozen in the middle of the publish (after any probe of an idle channel went through).
            proxy.freezeAfterForwarding(4_000);
            List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, 250);
            outbox.seed(envelopes);
            // Freeze the server the moment it holds a claim, check the claim is really held, then kill it:
            // the kill lands between claim and stamp, not a moment after a release.
            boolean holding = false;
            try {
                for (int attempt = 0; attempt < 5 && !holding; attempt++) {
                    await("rows claimed and not stamped")
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> outbox.count(
                                            "event_type = ? AND claimed_by = 'it-crash'"
                                                    + " AND claimed_at IS NOT NULL AND published_at IS NULL",
                                            eventType)
                                    > 0);
                    server.freeze();
                    Thread.sleep(200); // a COMMIT already on the wire when the JVM froze lands now
                    holding = outbox.count(
                                    "event_type = ? AND claimed_at IS NOT NULL AND published_at IS NULL", eventType)
                            > 0;
                    if (!holding) {
                        server.thaw();
                    }
                }
            } finally {
                server.kill(); // also when an assertion above failed: never leave a frozen JVM behind
            }
            assertThat(holding).as("the frozen server held a claim").isTrue();
            long stranded =
                    outbox.count("event_type = ? AND claimed_at IS NOT NULL AND published_at IS NULL", eventType);
            assertThat(stranded).as("rows the dead server still held").isPositive();

            proxy.resumeWithNewConnections();
            server.start();
            server.awaitApplicationStarted();

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> outbox.count("event_type = ? AND published_at IS NULL", eventType) == 0);
            queue.awaitArrivalOf(envelopes, Duration.ofSeconds(15));
            assertThat(Http.metric(server.uri(), "durability_outbox_lease_recoveries_total"))
                    .isGreaterThanOrEqualTo(stranded);
        }
    }
}
