package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * A server killed (SIGKILL) in the middle of a keyed request, after the handler placed its order and while the
 * answer was being recorded: the client, retrying with the same key and body, ends with the original outcome,
 * a 201 for one order, never a permanent 409 and never a second order (docs/decisions/0051-answer-commits-with-effects.md).
 *
 * <p>The request is held at that point by the database, not by a hook in the application: a trigger on this
 * server's own schema makes the recording of a success wait for an advisory lock the test holds.
 */
class IdempotencyServerKilledIT {
    private static final String SCHEMA = "durability_idempotency_crash";
    private static final String FILTER_IN_PROGRESS = "https://durability.dev/problems/idempotency-request-in-progress";

    @Test
    void aRetryAfterTheServerDiedMidRequestEndsInTheOriginalOutcome() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        ConsumerTables tables = new ConsumerTables(SCHEMA);
        long lock = ThreadLocalRandom.current().nextLong(1, Integer.MAX_VALUE);
        try (LibertyServer server = LibertyServer.copyOfMain(
                "durability-idempotency-crash",
                9198,
                Map.of(
                        "DB_SCHEMA", SCHEMA,
                        "DURABILITY_INSTANCE_NAME", "it-idempotency-crash",
                        "DURABILITY_IDEMPOTENCY_CLAIM_TIMEOUT_MS", "3000"))) {
            server.start();
            server.awaitApplicationStarted();
            String customer = "crash-" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();

            List<Integer> waiting;
            try (Connection holder = OutboxTable.connect()) {
                holdRecordedSuccesses(holder, lock);
                CompletableFuture<HttpResponse<String>> inFlight =
                        CompletableFuture.supplyAsync(() -> Http.postKeyedOrder(server.uri(), key, customer));
                waiting = await("the request's answer waits to be recorded")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> waitingFor(lock), pids -> !pids.isEmpty());
                server.kill();
                // The dead server's database session would go on once the lock is free: end it as the database
                // itself would on noticing its client gone.
                terminate(waiting);
                try (Statement s = holder.createStatement()) {
                    s.execute("DROP TRIGGER hold_recorded_success ON " + SCHEMA + ".idempotency_responses");
                }
                assertThat(inFlight).as("the in-flight request got no answer").failsWithin(Duration.ofSeconds(30));
            }

            server.start();
            server.awaitApplicationStarted();
            List<Integer> statuses = new ArrayList<>();
            HttpResponse<String> outcome = await("a retry that is not told to come back later")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                HttpResponse<String> retry = Http.postKeyedOrder(server.uri(), key, customer);
                                statuses.add(retry.statusCode());
                                return retry;
                            },
                            retry -> !isFilterInProgress(retry));
            HttpResponse<String> replay = Http.postKeyedOrder(server.uri(), key, customer);

            assertThat(outcome.statusCode()).as(outcome.body()).isEqualTo(201);
            String orderId = Http.json(outcome).getString("id");
            assertThat(outcome.headers().firstValue("Location"))
                    .hasValueSatisfying(l -> assertThat(l).endsWith("/api/orders/" + orderId));
            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replay.body()).isEqualTo(outcome.body());
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(tables.count("demo_orders", "customer = ?", customer))
                    .as("orders placed by the request and its retries %s", statuses)
                    .isEqualTo(1);
            assertThat(tables.count("event_outbox", "aggregate_id = ?::uuid", orderId))
                    .as("events staged for the order")
                    .isEqualTo(1);
        }
    }

    /** Makes every recording of a success on the server's schema wait while {@code holder} holds the lock. */
    private static void holdRecordedSuccesses(Connection holder, long lock) throws SQLException {
        try (Statement s = holder.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION " + SCHEMA + ".hold_recorded_success() RETURNS trigger"
                    + " LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(" + lock
                    + "); RETURN NEW; END $$");
            s.execute("CREATE TRIGGER hold_recorded_success BEFORE UPDATE ON " + SCHEMA + ".idempotency_responses"
                    + " FOR EACH ROW WHEN (NEW.state = 'succeeded') EXECUTE FUNCTION " + SCHEMA
                    + ".hold_recorded_success()");
        }
        try (PreparedStatement s = holder.prepareStatement("SELECT pg_advisory_lock(?)")) {
            s.setLong(1, lock);
            s.execute();
        }
    }

    /** The database sessions waiting for the lock. */
    private static List<Integer> waitingFor(long lock) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND NOT granted AND classid = 0 AND objid = ? AND objsubid = 1")) {
            s.setLong(1, lock);
            List<Integer> pids = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
            }
            return pids;
        }
    }

    private static void terminate(List<Integer> pids) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            for (int pid : pids) {
                s.setInt(1, pid);
                s.execute();
            }
        }
    }

    private static boolean isFilterInProgress(HttpResponse<String> response) {
        return response.statusCode() == 409 && response.body().contains(FILTER_IN_PROGRESS);
    }
}
