package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.schema.control.MigrationPlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * The migrations since the last one that was online by its nature (docs/schema.md, "Online migrations") stay online:
 * applied to an outbox and an inbox holding rows in every state while staging and consuming transactions keep
 * committing, they make no such transaction wait for a lock longer than one short step, lose no row, change no row's
 * state, and leave no index invalid, even when two servers start on them at once. They turn the outbox and the inbox
 * into tables partitioned by their ids' day (V15 to V18; docs/decisions/0093-outbox-partitioned-by-day.md,
 * 0094-inbox-partitioned-by-day.md), which take each table's lock in attempts of 20 ms at first. A plain {@code CREATE INDEX} on the outbox, or a rewrite of it, fails this test: its lock waits for the
 * staging transactions in flight, and every later one queues behind it for the whole build.
 */
class MigrationUnderLoadIT {
    private static final String SCHEMA = "durability_migration_load";
    private static final String STAGER = "durability-migration-stager";
    private static final int SEEDED = 200_000;
    private static final int SEEDED_INBOX = 100_000;
    private static final int STAGERS = 4;
    private static final int RECEIVERS = 2;
    /** The migrations after this one are applied under load. */
    private static final MigrationVersion BASELINE = MigrationVersion.fromVersion("14");
    /**
     * The longest a staging transaction may wait: one lock attempt at its longest (1 s, after some 40 attempts that a
     * busy table refused) and the swap, far below any build.
     */
    private static final long LONGEST_WAIT_MILLIS = 1_200;
    /**
     * A UUIDv7 of the moment {@code at} (an SQL expression of it), as EventEnvelope.builder makes them. Written out
     * rather than the schema's durability_new_uuid7: the rows are seeded before V19 made it, and staged while it runs.
     */
    private static final String UUID7 = "CAST(lpad(to_hex(CAST(floor(extract(epoch FROM %s) * 1000) AS bigint)), 12,"
            + " '0') || '7' || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15) AS uuid)";

    @Test
    void theMigrationsApplyOnceWhileStagingGoesOnAndNoStagingTransactionWaitsLongForThem() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Flyway release = MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA);
        Flyway.configure()
                .configuration(release.getConfiguration())
                .target(BASELINE)
                .load()
                .migrate();
        seedEveryState();
        seedEveryInboxState();
        Map<String, Long> statesBefore = states();
        Map<String, Long> inboxStatesBefore = inboxStates();
        int pending = release.info().pending().length;

        AtomicBoolean staging = new AtomicBoolean(true);
        AtomicBoolean migrating = new AtomicBoolean(false);
        AtomicInteger stagedDuringMigration = new AtomicInteger();
        AtomicInteger receivedDuringMigration = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(STAGERS + RECEIVERS + 3);
        try {
            List<Future<Integer>> stagers = new ArrayList<>();
            for (int i = 0; i < STAGERS; i++) {
                stagers.add(pool.submit(() -> stage(staging, migrating, stagedDuringMigration)));
            }
            List<Future<Integer>> receivers = new ArrayList<>();
            for (int i = 0; i < RECEIVERS; i++) {
                receivers.add(pool.submit(() -> receive(staging, migrating, receivedDuringMigration)));
            }
            Future<Long> longestWait = pool.submit(() -> longestLockWait(staging));
            Thread.sleep(500); // staging under way before the migration starts

            // Two servers starting at once, as a rolling upgrade's first two may: one migrates while the other waits
            // for Flyway's lock, then finds nothing left to do. A lock held in a transaction would be waited for by
            // the index builds forever.
            migrating.set(true);
            Future<MigrateResult> first = pool.submit(release::migrate);
            Future<MigrateResult> second = pool.submit(() ->
                    MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA).migrate());
            int applied = first.get(120, TimeUnit.SECONDS).migrationsExecuted
                    + second.get(120, TimeUnit.SECONDS).migrationsExecuted;
            migrating.set(false);

            Thread.sleep(200);
            staging.set(false);
            int staged = 0;
            for (Future<Integer> stager : stagers) {
                staged += stager.get(30, TimeUnit.SECONDS);
            }
            int received = 0;
            for (Future<Integer> receiver : receivers) {
                received += receiver.get(30, TimeUnit.SECONDS);
            }

            assertThat(release.info().pending()).as("migrations left").isEmpty();
            assertThat(applied)
                    .as("migrations applied by the two servers together")
                    .isEqualTo(pending);
            assertThat(longestWait.get(30, TimeUnit.SECONDS))
                    .as("the longest a staging or consuming transaction waited for a lock on a table or an index, ms")
                    .isLessThanOrEqualTo(LONGEST_WAIT_MILLIS);
            assertThat(stagedDuringMigration.get())
                    .as("staging transactions committed while the migration ran")
                    .isPositive();
            assertThat(receivedDuringMigration.get())
                    .as("consuming transactions committed while the migration ran")
                    .isPositive();
            Map<String, Long> expected = new TreeMap<>(statesBefore);
            expected.merge("pending", (long) staged, Long::sum);
            assertThat(states())
                    .as("every seeded row in the state it had, and every staged row pending")
                    .isEqualTo(expected);
            Map<String, Long> expectedInbox = new TreeMap<>(inboxStatesBefore);
            expectedInbox.merge("processed after 1 attempts", (long) received, Long::sum);
            assertThat(inboxStates())
                    .as("every seeded inbox row in the state it had, and every received one processed")
                    .isEqualTo(expectedInbox);
            assertThat(invalidIndexes()).as("indexes left invalid").isEmpty();
            assertThat(partitions("event_outbox"))
                    .as("the outbox as it was, below the bound, and the default partition")
                    .containsExactlyInAnyOrder("event_outbox_legacy", "event_outbox_default");
            assertThat(partitions("event_inbox"))
                    .as("the inbox as it was, below the bound, and the default partition")
                    .containsExactlyInAnyOrder("event_inbox_legacy", "event_inbox_default");
        } finally {
            staging.set(false);
            pool.shutdownNow();
        }
        OutboxTable.dropSchema(SCHEMA);
    }

    /**
     * A row whose id is no UUIDv7 (a random UUID staged with an envelope of the application's own) cannot go below the
     * partitions' bound: the migration stops, saying how many there are and how to let them go, and goes on once
     * they are gone.
     */
    @Test
    void rowsWhoseIdsAreNoUuid7StopThePartitioningUntilTheyAreGone() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Flyway release = MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA);
        Flyway.configure()
                .configuration(release.getConfiguration())
                .target(BASELINE)
                .load()
                .migrate();
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "INSERT INTO " + SCHEMA + ".event_outbox (id, event_type, envelope, published_at)"
                            + " VALUES ('f47ac10b-58cc-4372-a567-0e02b2c3d479', 'migration.random',"
                            + " '{\"id\": \"f47ac10b-58cc-4372-a567-0e02b2c3d479\", \"event_type\": \"migration.random\"}', now())");
        }

        assertThatThrownBy(release::migrate)
                .hasStackTraceContaining("event_outbox holds 1 rows whose ids are not UUIDv7")
                .hasStackTraceContaining("published_at IS NOT NULL");
        assertThat(partitions("event_outbox")).as("still one table").isEmpty();

        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + SCHEMA + ".event_outbox");
        }
        release.migrate();
        assertThat(partitions("event_outbox")).containsExactlyInAnyOrder("event_outbox_legacy", "event_outbox_default");
        OutboxTable.dropSchema(SCHEMA);
    }

    /**
     * The same for the inbox: a row of an envelope whose id is no UUIDv7 (a producer's random id) stops V17, which
     * says how many there are and how to let them go, after the outbox's partitioning committed; migrating again once
     * they are gone goes on from there.
     */
    @Test
    void inboxRowsOfIdsThatAreNoUuid7StopThePartitioningUntilTheyAreGone() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Flyway release = MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA);
        Flyway.configure()
                .configuration(release.getConfiguration())
                .target(BASELINE)
                .load()
                .migrate();
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + SCHEMA + ".event_inbox (consumer_queue, envelope_id, source_service, event_type,"
                    + " processed_at) VALUES ('migration.queue', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', 'elsewhere',"
                    + " 'migration.random', now())");
        }

        assertThatThrownBy(release::migrate)
                .hasStackTraceContaining("event_inbox holds 1 rows whose envelope ids are not UUIDv7")
                .hasStackTraceContaining("DELETE FROM event_inbox WHERE envelope_id >=");
        assertThat(partitions("event_outbox")).containsExactlyInAnyOrder("event_outbox_legacy", "event_outbox_default");
        assertThat(partitions("event_inbox")).as("still one table").isEmpty();

        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + SCHEMA + ".event_inbox");
        }
        release.migrate();
        assertThat(partitions("event_inbox")).containsExactlyInAnyOrder("event_inbox_legacy", "event_inbox_default");
        OutboxTable.dropSchema(SCHEMA);
    }

    /** Rows in each state the drain leaves them in, spread over the last hour. */
    private static void seedEveryState() throws SQLException {
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("SET search_path = " + SCHEMA);
            s.execute("""
                    INSERT INTO event_outbox (id, aggregate_id, event_type, envelope, created_at, published_at,
                                              unroutable_at, attempts, last_error, next_attempt_at, claimed_at,
                                              lease_until, claim_token, claimed_by)
                    SELECT id, gen_random_uuid(), 'migration.seeded',
                           jsonb_build_object('id', id, 'event_type', 'migration.seeded', 'payload',
                                              jsonb_build_object('n', n)),
                           at,
                           CASE WHEN mod(n, 5) = 0 THEN at + interval '1 second' END,
                           CASE WHEN mod(n, 5) = 4 THEN at + interval '1 second' END,
                           CASE WHEN mod(n, 5) IN (3, 4) THEN 2 ELSE 0 END,
                           CASE WHEN mod(n, 5) IN (3, 4) THEN 'seeded failure' END,
                           CASE WHEN mod(n, 5) = 3 THEN now() + interval '1 hour' END,
                           CASE WHEN mod(n, 5) = 2 THEN now() END,
                           CASE WHEN mod(n, 5) = 2 THEN now() + interval '1 hour' END,
                           CASE WHEN mod(n, 5) = 2 THEN gen_random_uuid() END,
                           CASE WHEN mod(n, 5) = 2 THEN 'migration-it' END
                      FROM (SELECT %s AS id, n, at
                              FROM (SELECT n, now() - interval '1 hour' + n * interval '10 milliseconds' AS at
                                      FROM generate_series(1, %d) n) times) seeded
                    """.formatted(UUID7.formatted("at"), SEEDED));
            s.execute("ANALYZE event_outbox");
        }
    }

    /** Inbox rows in each state a consumer leaves them in (processed, failing, dead-lettered), over the last hour. */
    private static void seedEveryInboxState() throws SQLException {
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("SET search_path = " + SCHEMA);
            s.execute("""
                    INSERT INTO event_inbox (consumer_queue, envelope_id, source_service, event_type, received_at,
                                             processed_at, attempts, last_error, dead_lettered_at,
                                             dead_lettered_publication)
                    SELECT 'migration.queue.' || mod(n, 3), id, 'migration-it', 'migration.seeded', at,
                           CASE WHEN mod(n, 3) = 0 THEN at + interval '1 second' END,
                           CASE WHEN mod(n, 3) = 0 THEN 1 ELSE 3 END,
                           CASE WHEN mod(n, 3) <> 0 THEN 'seeded failure' END,
                           CASE WHEN mod(n, 3) = 2 THEN at + interval '1 second' END,
                           CASE WHEN mod(n, 3) = 2 THEN 0 END
                      FROM (SELECT %s AS id, n, at
                              FROM (SELECT n, now() - interval '1 hour' + n * interval '20 milliseconds' AS at
                                      FROM generate_series(1, %d) n) times) seeded
                    """.formatted(UUID7.formatted("at"), SEEDED_INBOX));
            s.execute("ANALYZE event_inbox");
        }
    }

    /**
     * One consuming transaction after another, each inserting its envelope's inbox row as a delivery does (inserted
     * processed, or taken over on a conflict) and open a little while for the handler before it commits. Returns the
     * rows it committed; counts those whose transaction ran entirely while the migration did.
     */
    private static int receive(AtomicBoolean receiving, AtomicBoolean migrating, AtomicInteger duringMigration)
            throws SQLException, InterruptedException {
        return commitOneAfterAnother(
                """
                INSERT INTO event_inbox AS i (consumer_queue, envelope_id, source_service, event_type,
                                              processed_at, attempts)
                SELECT 'migration.received', id, 'migration-it', 'migration.received', now(), 1
                  FROM (SELECT %s AS id) received
                ON CONFLICT (consumer_queue, envelope_id) DO UPDATE
                    SET processed_at = now(), attempts = i.attempts + 1
                    WHERE i.processed_at IS NULL AND i.dead_lettered_at IS NULL
                """.formatted(UUID7.formatted("clock_timestamp()")), receiving, migrating, duringMigration);
    }

    /**
     * One staging transaction after another, each open a little while before it commits, as a business
     * transaction is; each inserts its row as OutboxStager does (no NOTIFY: the drain is woken in the process).
     * Returns the rows it committed; counts those whose transaction ran entirely while the migration did.
     */
    private static int stage(AtomicBoolean staging, AtomicBoolean migrating, AtomicInteger duringMigration)
            throws SQLException, InterruptedException {
        return commitOneAfterAnother(
                """
                INSERT INTO event_outbox (id, aggregate_id, event_type, envelope, notify_drains)
                SELECT id, gen_random_uuid(), 'migration.staged',
                       jsonb_build_object('id', id, 'event_type', 'migration.staged'), false
                  FROM (SELECT %s AS id) staged
                """.formatted(UUID7.formatted("clock_timestamp()")), staging, migrating, duringMigration);
    }

    /**
     * Runs {@code insert} in one transaction after another, each open 20 ms before it commits, while {@code going};
     * returns how many committed, and counts those whose transaction ran entirely while {@code migrating}.
     */
    private static int commitOneAfterAnother(
            String insert, AtomicBoolean going, AtomicBoolean migrating, AtomicInteger duringMigration)
            throws SQLException, InterruptedException {
        int committed = 0;
        try (Connection c = OutboxTable.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = '" + STAGER + "'");
                s.execute("SET search_path = " + SCHEMA);
            }
            c.commit();
            try (PreparedStatement statement = c.prepareStatement(insert)) {
                while (going.get()) {
                    boolean began = migrating.get();
                    statement.executeUpdate();
                    Thread.sleep(20);
                    c.commit();
                    committed++;
                    if (began && migrating.get()) {
                        duringMigration.incrementAndGet();
                    }
                }
            }
        }
        return committed;
    }

    /**
     * The longest a staging session was seen waiting for a lock on a table or an index, in milliseconds, sampled every
     * few milliseconds.
     */
    private static long longestLockWait(AtomicBoolean staging) throws SQLException, InterruptedException {
        Map<Integer, Long> waitingSince = new HashMap<>();
        long longest = 0;
        try (Connection c = OutboxTable.connect();
                PreparedStatement waiting = c.prepareStatement("SELECT DISTINCT a.pid FROM pg_locks l"
                        + " JOIN pg_stat_activity a ON a.pid = l.pid"
                        + " WHERE a.application_name = ? AND l.locktype = 'relation' AND NOT l.granted")) {
            waiting.setString(1, STAGER);
            while (staging.get()) {
                Set<Integer> now = new HashSet<>();
                try (ResultSet rs = waiting.executeQuery()) {
                    while (rs.next()) {
                        now.add(rs.getInt(1));
                    }
                }
                long at = System.nanoTime();
                now.forEach(pid -> waitingSince.putIfAbsent(pid, at));
                for (Iterator<Map.Entry<Integer, Long>> waits =
                                waitingSince.entrySet().iterator();
                        waits.hasNext(); ) {
                    Map.Entry<Integer, Long> wait = waits.next();
                    longest = Math.max(longest, TimeUnit.NANOSECONDS.toMillis(at - wait.getValue()));
                    if (!now.contains(wait.getKey())) {
                        waits.remove();
                    }
                }
                Thread.sleep(2);
            }
        }
        return longest;
    }

    /** The table's partitions; none while it is still one table. */
    private static List<String> partitions(String table) throws SQLException {
        List<String> partitions = new ArrayList<>();
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT c.relname FROM pg_inherits i"
                        + " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = CAST(? AS regclass)")) {
            s.setString(1, SCHEMA + "." + table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    partitions.add(rs.getString(1));
                }
            }
        }
        return partitions;
    }

    /** Rows per state, as the status gauges tell them apart. */
    private static Map<String, Long> states() throws SQLException {
        Map<String, Long> states = new TreeMap<>();
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CASE WHEN published_at IS NOT NULL THEN 'published'"
                        + " WHEN unroutable_at IS NOT NULL THEN 'unroutable'"
                        + " WHEN claimed_at IS NOT NULL THEN 'leased'"
                        + " WHEN next_attempt_at IS NOT NULL THEN 'in backoff'"
                        + " ELSE 'pending' END, count(*) FROM " + SCHEMA + ".event_outbox GROUP BY 1")) {
            while (rs.next()) {
                states.put(rs.getString(1), rs.getLong(2));
            }
        }
        return states;
    }

    /** Inbox rows per state and attempt count. */
    private static Map<String, Long> inboxStates() throws SQLException {
        Map<String, Long> states = new TreeMap<>();
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CASE WHEN processed_at IS NOT NULL THEN 'processed'"
                        + " WHEN dead_lettered_at IS NOT NULL THEN 'dead-lettered'"
                        + " ELSE 'failing' END || ' after ' || attempts || ' attempts',"
                        + " count(*) FROM " + SCHEMA + ".event_inbox GROUP BY 1")) {
            while (rs.next()) {
                states.put(rs.getString(1), rs.getLong(2));
            }
        }
        return states;
    }

    private static List<String> invalidIndexes() throws SQLException {
        List<String> invalid = new ArrayList<>();
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT c.relname FROM pg_index i"
                        + " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = ? AND NOT (i.indisvalid AND i.indisready)")) {
            s.setString(1, SCHEMA);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    invalid.add(rs.getString(1));
                }
            }
        }
        return invalid;
    }
}
