package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replay jobs at volume, across a crash and cancelled (docs/decisions/0084-replay-as-a-job.md), on a server and
 * schema of their own: its drain is parked (an hour's poll interval, no LISTEN), so the restaged rows stay pending
 * where the test counts them and nobody publishes a million messages; the shared server never sees them. The schema
 * is dropped at the end. Slices are the default 5,000 rows.
 */
class ReplayJobsIT {
    private static final String SCHEMA = "durability_replay_jobs";
    /** Free: no other test uses 9184 (nor its HTTPS port, 9547). */
    private static final int PORT = 9184;

    private static final int SLICE = 5_000;
    private static LibertyServer server;

    private final String user = "replay-jobs-it-" + UUID.randomUUID();
    private final String type = "replayjobs.t" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startServer() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        server = LibertyServer.copyOfMain(
                "durability-replay-jobs",
                PORT,
                Map.of(
                        "DB_SCHEMA", SCHEMA,
                        "DURABILITY_INSTANCE_NAME", "it-replay-jobs",
                        "DURABILITY_OUTBOX_POLL_INTERVAL_MS", "3600000",
                        "DURABILITY_OUTBOX_LISTEN_NOTIFY", "false"));
        server.start();
        server.awaitApplicationStarted();
    }

    @AfterAll
    static void stopServer() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            OutboxTable.dropSchema(SCHEMA);
        }
    }

    /**
     * A million published rows, seeded with one statement: the job restages each exactly once (publication 1,
     * pending again), in slices of 5,000 rows whose transactions each last well under a few seconds, as the job row
     * records and as PostgreSQL's own view of the server's sessions shows while it runs.
     */
    @Test
    void aMillionRowWindowIsRestagedInShortTransactionsEachRowExactlyOnce() throws Exception {
        OffsetDateTime from = daysBack(2);
        int rows = 1_000_000;
        seedPublished(from, rows);
        AdminReplays api = new AdminReplays(server.httpsUri(), user);
        long readBefore = rowsRead();

        AtomicReference<Double> longestTransaction = new AtomicReference<>(0.0);
        AtomicInteger samplesInASlice = new AtomicInteger();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        JsonObject job;
        try (Connection c = OutboxTable.connect()) {
            sampler.scheduleAtFixedRate(
                    () -> {
                        double open = longestOpenSliceTransaction(c);
                        if (open > 0) {
                            samplesInASlice.incrementAndGet();
                        }
                        longestTransaction.accumulateAndGet(open, Math::max);
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            URI location = AdminReplays.started(api.replay(window(from, from.plusDays(1))));
            job = api.awaitEnd(location, Duration.ofMinutes(3));
        } finally {
            sampler.shutdownNow();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
        }

        // The job counts its window once, and each slice reads its own rows twice (the ordered walk from the
        // position, the update's lookup by key): about three times the window. A slice that read the rest of the
        // window (a bitmap scan and sort on stale statistics) makes it about a hundred times: rows / 5,000 / 2.
        assertThat(rowsRead() - readBefore)
                .as("rows of event_outbox the job read (PostgreSQL's counters, reported up to seconds late)")
                .isLessThan(5L * rows);
        assertThat(job.getString("state")).isEqualTo("done");
        assertThat(job.getJsonNumber("matched").longValue()).isEqualTo(rows);
        assertThat(job.getJsonNumber("restaged").longValue()).isEqualTo(rows);
        assertThat(job.getJsonNumber("pending").longValue()).isZero();
        // 200 full slices, then one that finds the window's end.
        assertThat(job.getInt("slices")).isEqualTo(rows / SLICE + 1);
        assertThat(job.getJsonNumber("longest_slice_ms").doubleValue()).isLessThan(5_000);
        assertThat(longestTransaction.get())
                .as("longest open slice transaction seen, s")
                .isLessThan(5.0);
        assertThat(countOfType("publication = 1 AND published_at IS NULL AND unroutable_at IS NULL"))
                .isEqualTo(rows);
        assertThat(countOfType("publication <> 1")).isZero();

        List<AdminTables.AuditRow> audit = new AdminTables(SCHEMA).auditOf(user);
        assertThat(audit).extracting(AdminTables.AuditRow::outcome).containsExactly("started", "done");
        assertThat(audit.get(1).details()).contains("\"restaged\": " + rows).contains(job.getString("id"));
    }

    /**
     * The server is killed while a slice waits on a row lock (held here): the slice never commits, and after the
     * restart the job goes on from the position the last committed slice recorded, restaging every row once.
     */
    @Test
    void aJobGoesOnFromItsPositionAfterTheServerWasKilledMidSlice() throws Exception {
        OffsetDateTime from = daysBack(3);
        int rows = 4 * SLICE;
        seedPublished(from, rows);
        AdminReplays api = new AdminReplays(server.httpsUri(), user);
        URI location;
        try (Connection lock = OutboxTable.connect()) {
            int holder = lockRow(lock, 2 * SLICE + SLICE / 2); // in the third slice
            location = AdminReplays.started(api.replay(window(from, from.plusDays(1))));
            awaitSliceWaitingOnTheLock(api, location, 2L * SLICE, holder);
            server.kill();
            lock.rollback();
        }
        // The dead server's slice never committed: it rolls back once its session notices the client is gone.
        assertThat(jobRow(location)).isEqualTo("running " + 2 * SLICE);

        server.start();
        server.awaitApplicationStarted();
        JsonObject job = api.awaitEnd(location, Duration.ofMinutes(2));
        assertThat(job.getString("state")).isEqualTo("done");
        // Resumed after its position: a restart from the window's start would find the first 10,000 rows pending
        // and count them as pending, not restaged; the lost slice is not counted.
        assertThat(job.getJsonNumber("restaged").longValue()).isEqualTo(rows);
        assertThat(job.getJsonNumber("pending").longValue()).isZero();
        assertThat(job.getInt("slices")).isEqualTo(rows / SLICE + 1);
        assertThat(countOfType("publication = 1 AND published_at IS NULL")).isEqualTo(rows);
        assertThat(countOfType("publication <> 1")).isZero();
    }

    /**
     * A cancel waits for the slice in progress, then the job stops before its next one: what it restaged stays
     * restaged, the rest is untouched, and the audit records the cancel and the job's end with its counts.
     */
    @Test
    void aCancelledJobStopsAfterItsCurrentSliceAndKeepsWhatItRestaged() throws Exception {
        OffsetDateTime from = daysBack(4);
        int rows = 4 * SLICE;
        seedPublished(from, rows);
        AdminReplays api = new AdminReplays(server.httpsUri(), user);
        URI location;
        HttpResponse<String> cancelled;
        try (Connection lock = OutboxTable.connect()) {
            int holder = lockRow(lock, SLICE + SLICE / 2); // in the second slice
            location = AdminReplays.started(api.replay(window(from, from.plusDays(1))));
            awaitSliceWaitingOnTheLock(api, location, SLICE, holder);

            // A second job on an overlapping window is refused while this one runs, naming it.
            HttpResponse<String> overlapping = api.replay(window(from.plusHours(1), from.plusDays(2)));
            assertThat(overlapping.statusCode()).as(overlapping.body()).isEqualTo(409);
            assertThat(Http.json(overlapping).getString("type"))
                    .isEqualTo("https://durability.dev/problems/admin/replay-running");
            assertThat(Http.json(overlapping).getString("detail")).contains(jobId(location));

            CompletableFuture<HttpResponse<String>> cancel = CompletableFuture.supplyAsync(() -> api.cancel(location));
            await("the cancel waiting for the slice holding the job's row")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> waitingOnTheSliceWaitingOn(holder) == 1);
            lock.rollback();
            cancelled = cancel.get(30, TimeUnit.SECONDS);
        }
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);
        assertThat(Http.json(cancelled).getString("cancelled_by")).isEqualTo(user);

        JsonObject job = api.awaitEnd(location, Duration.ofSeconds(30));
        assertThat(job.getString("state")).isEqualTo("cancelled");
        assertThat(job.getJsonNumber("restaged").longValue()).isEqualTo(2L * SLICE);
        assertThat(job.getInt("slices")).isEqualTo(2);
        assertThat(job.getString("ended_at")).isNotBlank();
        assertThat(countOfType("publication = 1 AND published_at IS NULL")).isEqualTo(2L * SLICE);
        assertThat(countOfType("publication = 0 AND published_at IS NOT NULL")).isEqualTo(rows - 2L * SLICE);

        HttpResponse<String> again = api.cancel(location);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(Http.json(again).getString("type")).isEqualTo("https://durability.dev/problems/admin/replay-ended");

        List<AdminTables.AuditRow> audit = new AdminTables(SCHEMA).auditOf(user);
        assertThat(audit)
                .extracting(row -> row.action() + " " + row.outcome())
                .containsExactly(
                        "replay started",
                        "replay refused",
                        "replay-cancel done",
                        "replay cancelled",
                        "replay-cancel refused");
        assertThat(audit.get(3).details())
                .contains("\"restaged\": " + 2 * SLICE)
                .contains("\"cancelled_by\"");
    }

    private static OffsetDateTime daysBack(int days) {
        return OffsetDateTime.now(ZoneOffset.UTC).minusDays(days).truncatedTo(ChronoUnit.HOURS);
    }

    private static Map<String, String> window(OffsetDateTime from, OffsetDateTime to) {
        return Map.of("from", from.toString(), "to", to.toString());
    }

    /** {@code rows} published rows of this test's type, 10 ms apart from {@code from}: one statement. */
    private void seedPublished(OffsetDateTime from, int rows) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + SCHEMA
                        + ".event_outbox (id, event_type, envelope, created_at, published_at)"
                        + " SELECT id, ?, jsonb_build_object('id', id, 'event_type', CAST(? AS text), 'payload',"
                        + " jsonb_build_object('n', n)), at, at + interval '1 second'"
                        + " FROM (SELECT gen_random_uuid() AS id, n, CAST(? AS timestamptz) + n * interval '10 ms' AS at"
                        + " FROM generate_series(0, ? - 1) n) seeded")) {
            insert.setString(1, type);
            insert.setString(2, type);
            insert.setObject(3, from);
            insert.setInt(4, rows);
            assertThat(insert.executeUpdate()).isEqualTo(rows);
        }
    }

    /**
     * Locks the row at this position of the window (0-based, in the job's order), in the connection's transaction;
     * answers the connection's backend pid.
     */
    private int lockRow(Connection c, int position) throws SQLException {
        // FOR UPDATE with OFFSET would lock the rows it skips too: the row is found first, then locked alone.
        c.setAutoCommit(false);
        try (PreparedStatement lock = c.prepareStatement("SELECT id FROM " + SCHEMA
                + ".event_outbox WHERE id = (SELECT id FROM " + SCHEMA + ".event_outbox WHERE event_type = ?"
                + " ORDER BY created_at, id OFFSET ? LIMIT 1) FOR UPDATE")) {
            lock.setString(1, type);
            lock.setInt(2, position);
            try (ResultSet rs = lock.executeQuery()) {
                assertThat(rs.next()).isTrue();
            }
        }
        try (PreparedStatement pid = c.prepareStatement("SELECT pg_backend_pid()");
                ResultSet rs = pid.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Waits until the job committed {@code restaged} rows and its next slice waits on the row lock held by backend
     * {@code holder}.
     */
    private void awaitSliceWaitingOnTheLock(AdminReplays api, URI location, long restaged, int holder) {
        await("the job's slice after " + restaged + " rows waiting on the row lock")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> api.job(location).getJsonNumber("restaged").longValue() + " " + waitingOn(holder),
                        seen -> seen.equals(restaged + " 1"));
    }

    /** Sessions waiting for a lock that backend {@code holder} holds. */
    private static long waitingOn(int holder) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
            s.setInt(1, holder);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Sessions waiting for a lock held by a session that itself waits on backend {@code holder} (the slice). */
    private static long waitingOnTheSliceWaitingOn(int holder) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM pg_stat_activity a WHERE EXISTS"
                        + " (SELECT 1 FROM pg_stat_activity slice WHERE ? = ANY (pg_blocking_pids(slice.pid))"
                        + " AND slice.pid = ANY (pg_blocking_pids(a.pid)))")) {
            s.setInt(1, holder);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * The age in seconds of the oldest open transaction of a replay slice on the database right now (0 when none):
     * the servers' sessions (application name durability) whose transaction's latest statement is one of a slice's.
     */
    private static double longestOpenSliceTransaction(Connection c) {
        try (PreparedStatement s = c.prepareStatement("SELECT COALESCE(max(EXTRACT(EPOCH FROM clock_timestamp()"
                + " - xact_start)), 0) FROM pg_stat_activity WHERE application_name = 'durability'"
                + " AND xact_start IS NOT NULL AND (query LIKE '%replay_job%' OR query LIKE '%WITH slice AS%'"
                + " OR query LIKE '%plan_cache_mode%')")) {
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getDouble(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String jobId(URI location) {
        return location.getPath().substring(location.getPath().lastIndexOf('/') + 1);
    }

    /** The job's state and rows restaged, read from its table (while its server is down). */
    private static String jobRow(URI location) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT state || ' ' || restaged FROM " + SCHEMA + ".replay_job WHERE id = CAST(? AS uuid)")) {
            s.setString(1, jobId(location));
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }

    /** Rows of the schema's outbox read so far by sequential and index scans, as PostgreSQL counts them. */
    private static long rowsRead() throws SQLException {
        try (Connection c = OutboxTable.connect();
                // The partitioned outbox reads rows from its partitions (docs/decisions/0093).
                PreparedStatement s = c.prepareStatement(
                        "SELECT sum(COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0))"
                                + " FROM pg_stat_user_tables WHERE relid IN (SELECT relid FROM pg_partition_tree(CAST(? AS regclass)))")) {
            s.setString(1, SCHEMA + ".event_outbox");
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private long countOfType(String where) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM " + SCHEMA + ".event_outbox WHERE event_type = ? AND " + where)) {
            s.setString(1, type);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
