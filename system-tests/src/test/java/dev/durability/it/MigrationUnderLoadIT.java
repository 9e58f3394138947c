package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.schema.control.MigrationPlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * The newest migration is online-safe (docs/schema.md, "Online migrations"): applied to an outbox holding rows in
 * every state while staging transactions keep committing, it makes no staging transaction wait for a lock, loses
 * no row, changes no row's state, and leaves no index invalid, even when two servers start on it at once. A plain {@code CREATE INDEX} on the outbox fails
 * this test: its lock waits for the staging transactions in flight, and every later one queues behind it.
 */
class MigrationUnderLoadIT {
    private static final String SCHEMA = "durability_migration_load";
    private static final String STAGER = "durability-migration-stager";
    private static final int SEEDED = 200_000;
    private static final int STAGERS = 4;

    @Test
    void theNewestMigrationAppliesOnceWhileStagingGoesOnAndNoStagingTransactionWaitsForIt() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Flyway release = MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA);
        MigrationVersion newest = newest(release);
        Flyway.configure()
                .configuration(release.getConfiguration())
                .target(previous(release, newest))
                .load()
                .migrate();
        seedEveryState();
        Map<String, Long> statesBefore = states();

        AtomicBoolean staging = new AtomicBoolean(true);
        AtomicBoolean migrating = new AtomicBoolean(false);
        AtomicInteger stagedDuringMigration = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(STAGERS + 3);
        try {
            List<Future<Integer>> stagers = new ArrayList<>();
            for (int i = 0; i < STAGERS; i++) {
                stagers.add(pool.submit(() -> stage(staging, migrating, stagedDuringMigration)));
            }
            Future<Integer> lockWaits = pool.submit(() -> sampleLockWaits(staging));
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

            assertThat(release.info().current().getVersion()).isEqualTo(newest);
            assertThat(applied)
                    .as("migrations applied by the two servers together")
                    .isEqualTo(1);
            assertThat(lockWaits.get(30, TimeUnit.SECONDS))
                    .as("staging transactions seen waiting for a lock on the outbox or its indexes")
                    .isZero();
            assertThat(stagedDuringMigration.get())
                    .as("staging transactions committed while the migration ran")
                    .isPositive();
            Map<String, Long> expected = new TreeMap<>(statesBefore);
            expected.merge("pending", (long) staged, Long::sum);
            assertThat(states())
                    .as("every seeded row in the state it had, and every staged row pending")
                    .isEqualTo(expected);
            assertThat(invalidIndexes()).as("indexes left invalid").isEmpty();
        } finally {
            staging.set(false);
            pool.shutdownNow();
        }
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
                      FROM (SELECT gen_random_uuid() AS id, n,
                                   now() - interval '1 hour' + n * interval '10 milliseconds' AS at
                              FROM generate_series(1, %d) n) seeded
                    """.formatted(SEEDED));
            s.execute("ANALYZE event_outbox");
        }
    }

    /**
     * One staging transaction after another, each open a little while before it commits, as a business
     * transaction is; each inserts its row as OutboxStager does (no NOTIFY: the drain is woken in the process).
     * Returns the rows it committed; counts those whose transaction ran entirely while the migration did.
     */
    private static int stage(AtomicBoolean staging, AtomicBoolean migrating, AtomicInteger duringMigration)
            throws SQLException, InterruptedException {
        int committed = 0;
        try (Connection c = OutboxTable.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = '" + STAGER + "'");
                s.execute("SET search_path = " + SCHEMA);
            }
            c.commit();
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO event_outbox (id, aggregate_id, event_type, envelope, notify_drains)
                    SELECT id, gen_random_uuid(), 'migration.staged',
                           jsonb_build_object('id', id, 'event_type', 'migration.staged'), false
                      FROM (SELECT gen_random_uuid() AS id) staged
                    """)) {
                while (staging.get()) {
                    boolean began = migrating.get();
                    insert.executeUpdate();
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
     * How many times a staging session was seen waiting for a lock on a table or an index, sampled every few
     * milliseconds.
     */
    private static int sampleLockWaits(AtomicBoolean staging) throws SQLException, InterruptedException {
        int waits = 0;
        try (Connection c = OutboxTable.connect();
                PreparedStatement waiting =
                        c.prepareStatement("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                                + " WHERE a.application_name = ? AND l.locktype = 'relation' AND NOT l.granted")) {
            waiting.setString(1, STAGER);
            while (staging.get()) {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    waits += rs.getInt(1);
                }
                Thread.sleep(2);
            }
        }
        return waits;
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

    private static MigrationVersion newest(Flyway release) {
        return versions(release).max(Comparator.naturalOrder()).orElseThrow();
    }

    private static MigrationVersion previous(Flyway release, MigrationVersion newest) {
        return versions(release)
                .filter(newest::isNewerThan)
                .max(Comparator.naturalOrder())
                .orElseThrow();
    }

    private static java.util.stream.Stream<MigrationVersion> versions(Flyway release) {
        return Arrays.stream(release.info().all())
                .map(MigrationInfo::getVersion)
                .filter(Objects::nonNull)
                .filter(v -> v.isNewerThan(MigrationVersion.fromVersion("0")));
    }
}
