package dev.durability.retention.control;

import dev.durability.config.control.ServiceConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Deletes what the retention windows let go, table by table, in batches: each DELETE is its own short
 * transaction of at most {@code batch-size} rows, and a run stops at {@code max-rows-per-run} per table, so
 * pruning never holds many locks for long; a table that stopped at its cap says so, and the timer prunes it again
 * after a short pause until it has caught up. Each run ends a table by measuring how far past its window the
 * oldest row it may delete is (the {@code durability_retention_overdue_seconds} gauge and its alert). A table is pruned by one server at a time: each run takes a
 * PostgreSQL advisory lock per table and skips a table whose lock another server holds.
 *
 * <p>The outbox and the inbox are partitioned by their ids' day (docs/decisions/0093-outbox-partitioned-by-day.md,
 * 0094-inbox-partitioned-by-day.md): every run first makes the partitions of the days ahead, then, under the table's
 * retention lock, retires the day partitions whose every id is past the window whole, and deletes rows one by one
 * only from the partitions no day covers, or from every partition under a window shorter than a day.
 *
 * <p>Every DELETE repeats its condition on the rows it deletes, not only in the subquery that picks them:
 * a row that changed after it was picked (an outbox row an operator re-staged meanwhile) is re-checked and
 * kept.
 */
public class RetentionPruner {
    // The first key of every retention lock ("DRET"), so no other advisory lock of the application collides.
    private static final int LOCK_SPACE = 1146242388;
    private static final String TRY_LOCK =
            "SELECT pg_try_advisory_lock(" + LOCK_SPACE + ", hashtext('{schema}.' || ?))";
    private static final String UNLOCK = "SELECT pg_advisory_unlock(" + LOCK_SPACE + ", hashtext('{schema}.' || ?))";
    // The outbox and the inbox are partitioned by their ids' day (docs/decisions/0093-outbox-partitioned-by-day.md,
    // 0094-inbox-partitioned-by-day.md): a day partition past the window is retired whole, and only the partitions
    // no day covers lose rows one by one (every partition under a window shorter than a day). Their retention SQL is
    // functions of the schema (migrations V16, V18), which may detach and drop partitions for a role that may only
    // delete rows. Unroutable rows reached no consumer: kept until an operator re-stages them, unless a window of their
    // own lets them go.
    private static final List<String> PARTITIONED = List.of("event_outbox", "event_inbox");
    private static final String MAKE_PARTITIONS =
            "SELECT {schema}.durability_make_day_partitions(?, CAST(? AS timestamptz))";
    private static final String RETIRE_OUTBOX_PARTITIONS = """
            SELECT dropped, kept, behind_seconds
              FROM {schema}.event_outbox_retire_partitions(?, ?, CAST(? AS timestamptz))
            """;
    private static final String RETIRE_INBOX_PARTITIONS = """
            SELECT dropped, kept, behind_seconds FROM {schema}.event_inbox_retire_partitions(?, CAST(? AS timestamptz))
            """;
    private static final String OUTBOX =
            "SELECT {schema}.event_outbox_prune_rows('published', ?, ?, CAST(? AS timestamptz))";
    private static final String UNROUTABLE =
            "SELECT {schema}.event_outbox_prune_rows('unroutable', ?, ?, CAST(? AS timestamptz))";
    private static final String INBOX = "SELECT {schema}.event_inbox_prune_rows(?, ?, CAST(? AS timestamptz))";
    private static final String DEAD_LETTERS = """
            DELETE FROM {schema}.dead_letter_audit WHERE id IN (
                SELECT id FROM {schema}.dead_letter_audit WHERE dlq_received_at < now() - ? * interval '1 second'
                 ORDER BY dlq_received_at LIMIT ?)
               AND dlq_received_at < now() - ? * interval '1 second'
            """;
    private static final String IDEMPOTENCY = """
            DELETE FROM {schema}.idempotency_responses WHERE cache_key IN (
                SELECT cache_key FROM {schema}.idempotency_responses WHERE expires_at < now() - ? * interval '1 second'
                 ORDER BY expires_at LIMIT ?)
               AND expires_at < now() - ? * interval '1 second'
            """;
    // How far past its window the oldest row the window lets go is, in seconds; no row when none is left. Each
    // walks the same index from the same end as its table's DELETE, and stops at the first row.
    private static final String OUTBOX_OVERDUE =
            "SELECT {schema}.event_outbox_overdue('published', ?, CAST(? AS timestamptz))";
    private static final String UNROUTABLE_OVERDUE =
            "SELECT {schema}.event_outbox_overdue('unroutable', ?, CAST(? AS timestamptz))";
    private static final String INBOX_OVERDUE = "SELECT {schema}.event_inbox_overdue(?, CAST(? AS timestamptz))";
    private static final String DEAD_LETTERS_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - dlq_received_at) FROM {schema}.dead_letter_audit
             WHERE dlq_received_at < now() - ? * interval '1 second' ORDER BY dlq_received_at LIMIT 1
            """;
    private static final String IDEMPOTENCY_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - expires_at) FROM {schema}.idempotency_responses
             WHERE expires_at < now() - ? * interval '1 second' ORDER BY expires_at LIMIT 1
            """;
    private static final Logger LOG = Logger.getLogger(RetentionPruner.class.getName());
    // A run's bound on partitions dropped, a day each: a server back after a long stop catches up over a few runs.
    private static final int MAX_PARTITIONS_PER_RUN = 100;
    /** The name the unroutable outbox rows' pruning reports and locks under. */
    public static final String UNROUTABLE_ROWS = "event_outbox_unroutable";

    private final DataSource dataSource;
    private final String schema;
    private final RetentionMetrics metrics;
    private final Instant asOf;

    /** Prunes the library's tables in {@code schema}, the schema of this data source's connections. */
    public RetentionPruner(DataSource dataSource, String schema, RetentionMetrics metrics) {
        this(dataSource, schema, metrics, null);
    }

    private RetentionPruner(DataSource dataSource, String schema, RetentionMetrics metrics, Instant asOf) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.metrics = metrics;
        this.asOf = asOf;
    }

    /**
     * The same pruner judging the partitioned tables' partitions and rows as at {@code at} instead of the database's
     * clock: how a test sees days pass.
     */
    public RetentionPruner asOf(Instant at) {
        return new RetentionPruner(dataSource, schema, metrics, at);
    }

    /** One run over every table; never throws: a table that fails is reported and the others still run. */
    public List<TablePruning> prune(RetentionPlan plan) {
        return run(plan, true);
    }

    /**
     * How far behind each table is, without deleting anything: what a server reports before its first run, so a
     * backlog left by servers that stopped shows at once rather than after the next hour.
     */
    public List<TablePruning> measure(RetentionPlan plan) {
        return run(plan, false);
    }

    private List<TablePruning> run(RetentionPlan plan, boolean delete) {
        // Before anything may fail: the days ahead need their partitions whatever retention does, even at start.
        makePartitions(plan);
        List<TablePruning> run = new ArrayList<>();
        run.add(prune(
                plan,
                delete,
                Statements.partitioned(OUTBOX, OUTBOX_OVERDUE, "event_outbox", RETIRE_OUTBOX_PARTITIONS),
                plan.outbox()));
        run.add(prune(
                plan,
                delete,
                Statements.partitioned(UNROUTABLE, UNROUTABLE_OVERDUE, UNROUTABLE_ROWS, null),
                plan.unroutable()));
        run.add(prune(
                plan,
                delete,
                Statements.partitioned(INBOX, INBOX_OVERDUE, "event_inbox", RETIRE_INBOX_PARTITIONS),
                plan.inbox()));
        run.add(prune(
                plan,
                delete,
                Statements.rows(DEAD_LETTERS, DEAD_LETTERS_OVERDUE, "dead_letter_audit"),
                plan.deadLetters()));
        // Idempotency records carry their own expiry: they go as soon as it passed (0 s after it).
        Statements idempotency = Statements.rows(IDEMPOTENCY, IDEMPOTENCY_OVERDUE, "idempotency_responses");
        run.add(plan.idempotency() ? prune(plan, delete, idempotency, 0) : disabled(idempotency.table()));
        return run;
    }

    /**
     * A table's statements: its batch DELETE and its overdue measurement, and how they take the window; a
     * partitioned table's are functions of the schema that also take the moment they judge at, and retire its day
     * partitions ({@code retirement}; none for the unroutable rows, which live in the outbox's).
     */
    private record Statements(String table, String deletion, String overdue, boolean partitioned, String retirement) {
        static Statements rows(String deletion, String overdue, String table) {
            return new Statements(table, deletion, overdue, false, null);
        }

        static Statements partitioned(String deletion, String overdue, String table, String retirement) {
            return new Statements(table, deletion, overdue, true, retirement);
        }
    }

    /**
     * Makes the partitioned tables' partitions of the days ahead. Two servers at once take turns (the function
     * locks); a failure is reported and left to the next run: the default partition takes the rows of a day without
     * one.
     */
    private void makePartitions(RetentionPlan plan) {
        for (String table : PARTITIONED) {
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement make =
                            connection.prepareStatement(ServiceConfig.qualify(MAKE_PARTITIONS, schema))) {
                connection.setAutoCommit(true);
                make.setQueryTimeout(plan.statementTimeoutSeconds());
                make.setString(1, table);
                make.setString(2, asOf());
                try (ResultSet made = make.executeQuery()) {
                    int count = made.next() ? made.getInt(1) : 0;
                    if (count > 0) {
                        LOG.info(() ->
                                "Retention made " + count + " day partitions of " + schema + "." + table + " ahead");
                    }
                }
            } catch (SQLException | RuntimeException e) {
                metrics.failed(schema, table);
                LOG.log(
                        Level.WARNING,
                        e,
                        () -> "Making the partitions of the days ahead of " + table + " failed; the next run tries"
                                + " again, and the default partition takes the rows of a day without one meanwhile");
            }
        }
    }

    private String asOf() {
        return asOf == null ? null : asOf.toString();
    }

    private TablePruning prune(RetentionPlan plan, boolean delete, Statements table, Duration window) {
        return window.isZero() ? disabled(table.table()) : prune(plan, delete, table, window.toSeconds());
    }

    private TablePruning disabled(String table) {
        // A table kept forever is never behind.
        metrics.overdue(schema, table, 0);
        return TablePruning.without(table, TablePruning.Outcome.DISABLED, 0);
    }

    private TablePruning prune(RetentionPlan plan, boolean delete, Statements statements, long seconds) {
        String table = statements.table();
        long deleted = 0;
        int statementsRun = 0;
        long longest = 0;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            if (!delete || !lock(connection, TRY_LOCK, table)) {
                // Another server prunes it now (or this is a measurement): how far behind it is, all the same.
                double behind = overdue(connection, plan, statements, seconds);
                return TablePruning.without(
                        table, delete ? TablePruning.Outcome.PRUNED_ELSEWHERE : TablePruning.Outcome.MEASURED, behind);
            }
            double behind;
            try {
                double busy =
                        statements.retirement() == null ? 0 : retirePartitions(connection, plan, statements, seconds);
                try (PreparedStatement batch =
                        connection.prepareStatement(ServiceConfig.qualify(statements.deletion(), schema))) {
                    batch.setQueryTimeout(plan.statementTimeoutSeconds());
                    while (deleted < plan.maxRowsPerRun()) {
                        int size = (int) Math.min(plan.batchSize(), plan.maxRowsPerRun() - deleted);
                        long started = System.nanoTime();
                        int rows = deleteBatch(batch, statements, seconds, size);
                        longest = Math.max(longest, System.nanoTime() - started);
                        statementsRun++;
                        deleted += rows;
                        metrics.pruned(schema, table, rows);
                        if (rows < size) {
                            break;
                        }
                    }
                }
                behind = Math.max(busy, overdue(connection, plan, statements, seconds));
                metrics.overdue(schema, table, behind);
            } finally {
                unlock(connection, table);
            }
            TablePruning done = new TablePruning(
                    table,
                    TablePruning.Outcome.PRUNED,
                    deleted,
                    statementsRun,
                    Duration.ofNanos(longest),
                    deleted >= plan.maxRowsPerRun(),
                    behind);
            if (deleted > 0) {
                LOG.info(() -> "Retention deleted " + done.deleted() + " rows of " + table + " in " + done.statements()
                        + " statements (longest " + done.longest().toMillis() + " ms)"
                        + (done.stoppedAtCap()
                                ? "; stopped at its cap with rows " + Math.round(done.overdueSeconds())
                                        + " s past the window left, pruned again shortly"
                                : ""));
            }
            return done;
        } catch (SQLException | RuntimeException e) {
            metrics.failed(schema, table);
            long sofar = deleted;
            LOG.log(
                    Level.WARNING,
                    e,
                    () -> "Retention of " + table + " failed after deleting " + sofar + " rows; the next run goes on");
            return new TablePruning(
                    table,
                    TablePruning.Outcome.FAILED,
                    deleted,
                    statementsRun,
                    Duration.ofNanos(longest),
                    false,
                    Double.NaN);
        }
    }

    /** One batch: the rows it deleted. */
    private int deleteBatch(PreparedStatement batch, Statements statements, long seconds, int size)
            throws SQLException {
        batch.setLong(1, seconds);
        batch.setInt(2, size);
        if (!statements.partitioned()) {
            batch.setLong(3, seconds);
            return batch.executeUpdate();
        }
        batch.setString(3, asOf());
        try (ResultSet deleted = batch.executeQuery()) {
            return deleted.next() ? deleted.getInt(1) : 0;
        }
    }

    /**
     * Retires a partitioned table's day partitions past the window, under the table's retention lock, one per call of
     * the function (each its own transaction, so the table's exclusive lock covers one partition only), until a call
     * drops none; returns how far past the window the oldest one left is (kept, or its lock did not come; 0 when
     * none), which counts as overdue.
     */
    private double retirePartitions(Connection connection, RetentionPlan plan, Statements statements, long seconds)
            throws SQLException {
        String table = statements.table();
        int dropped = 0;
        try (PreparedStatement retire =
                connection.prepareStatement(ServiceConfig.qualify(statements.retirement(), schema))) {
            retire.setQueryTimeout(plan.statementTimeoutSeconds());
            retire.setLong(1, seconds);
            if (table.equals("event_outbox")) {
                retire.setLong(2, plan.unroutable().toSeconds());
                retire.setString(3, asOf());
            } else {
                retire.setString(2, asOf());
            }
            while (true) {
                try (ResultSet result = retire.executeQuery()) {
                    result.next();
                    boolean droppedOne = result.getInt(1) > 0;
                    dropped += droppedOne ? 1 : 0;
                    if (droppedOne && dropped < MAX_PARTITIONS_PER_RUN) {
                        continue;
                    }
                    int kept = result.getInt(2);
                    int total = dropped;
                    metrics.partitions(schema, table, total, kept);
                    if (total > 0 || kept > 0) {
                        LOG.info(() -> "Retention dropped " + total + " day partitions of " + schema + "." + table
                                + (kept > 0
                                        ? "; kept " + kept + " past the window that hold more rows it keeps than it"
                                                + " moves (docs/operations.md, \"Retention\")"
                                        : ""));
                    }
                    return result.getDouble(3);
                }
            }
        }
    }

    /** Reads how far behind the table is and reports it; 0 when nothing past the window is left. */
    private double overdue(Connection connection, RetentionPlan plan, Statements statements, long windowSeconds)
            throws SQLException {
        try (PreparedStatement oldest =
                connection.prepareStatement(ServiceConfig.qualify(statements.overdue(), schema))) {
            oldest.setQueryTimeout(plan.statementTimeoutSeconds());
            oldest.setLong(1, windowSeconds);
            if (statements.partitioned()) {
                oldest.setString(2, asOf());
            } else {
                oldest.setLong(2, windowSeconds);
            }
            try (ResultSet result = oldest.executeQuery()) {
                double behind = result.next() ? Math.max(0, result.getDouble(1)) : 0;
                metrics.overdue(schema, statements.table(), behind);
                return behind;
            }
        }
    }

    /**
     * Releases the table's lock before the connection goes back to the pool; a connection whose lock cannot
     * be released (broken, or the release itself failed) is aborted rather than pooled, since a pooled session
     * holding the lock would make every server skip the table until the connection ages out.
     */
    private void unlock(Connection connection, String table) throws SQLException {
        boolean released = false;
        try {
            released = lock(connection, UNLOCK, table);
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "could not release the retention lock of " + table, e);
        }
        if (!released) {
            connection.abort(Runnable::run);
        }
    }

    private boolean lock(Connection connection, String sql, String table) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(ServiceConfig.qualify(sql, schema))) {
            lock.setString(1, table);
            try (ResultSet result = lock.executeQuery()) {
                return result.next() && result.getBoolean(1);
            }
        }
    }
}
