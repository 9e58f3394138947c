package dev.durability.retention.control;

import dev.durability.config.control.ServiceConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
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
    private static final String OUTBOX = """
            DELETE FROM {schema}.event_outbox WHERE id IN (
                SELECT id FROM {schema}.event_outbox WHERE created_at < now() - ? * interval '1 second' AND published_at IS NOT NULL
                 ORDER BY created_at LIMIT ?)
               AND created_at < now() - ? * interval '1 second' AND published_at IS NOT NULL
            """;
    // Rows the broker returned as unroutable reached no consumer: kept until an operator re-stages them,
    // unless a window of their own lets them go.
    private static final String UNROUTABLE = """
            DELETE FROM {schema}.event_outbox WHERE id IN (
                SELECT id FROM {schema}.event_outbox
                 WHERE created_at < now() - ? * interval '1 second' AND published_at IS NULL AND unroutable_at IS NOT NULL
                 ORDER BY created_at LIMIT ?)
               AND created_at < now() - ? * interval '1 second' AND published_at IS NULL AND unroutable_at IS NOT NULL
            """;
    private static final String INBOX = """
            DELETE FROM {schema}.event_inbox WHERE (consumer_queue, envelope_id) IN (
                SELECT consumer_queue, envelope_id FROM {schema}.event_inbox WHERE received_at < now() - ? * interval '1 second'
                 ORDER BY received_at LIMIT ?)
               AND received_at < now() - ? * interval '1 second'
            """;
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
    private static final String OUTBOX_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - created_at) FROM {schema}.event_outbox
             WHERE created_at < now() - ? * interval '1 second' AND published_at IS NOT NULL ORDER BY created_at LIMIT 1
            """;
    private static final String UNROUTABLE_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - created_at) FROM {schema}.event_outbox
             WHERE created_at < now() - ? * interval '1 second' AND published_at IS NULL AND unroutable_at IS NOT NULL
             ORDER BY created_at LIMIT 1
            """;
    private static final String INBOX_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - received_at) FROM {schema}.event_inbox
             WHERE received_at < now() - ? * interval '1 second' ORDER BY received_at LIMIT 1
            """;
    private static final String DEAD_LETTERS_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - dlq_received_at) FROM {schema}.dead_letter_audit
             WHERE dlq_received_at < now() - ? * interval '1 second' ORDER BY dlq_received_at LIMIT 1
            """;
    private static final String IDEMPOTENCY_OVERDUE = """
            SELECT extract(epoch FROM (now() - ? * interval '1 second') - expires_at) FROM {schema}.idempotency_responses
             WHERE expires_at < now() - ? * interval '1 second' ORDER BY expires_at LIMIT 1
            """;
    private static final Logger LOG = Logger.getLogger(RetentionPruner.class.getName());
    /** The name the unroutable outbox rows' pruning reports and locks under. */
    public static final String UNROUTABLE_ROWS = "event_outbox_unroutable";

    private final DataSource dataSource;
    private final String schema;
    private final RetentionMetrics metrics;

    /** Prunes the library's tables in {@code schema}, the schema of this data source's connections. */
    public RetentionPruner(DataSource dataSource, String schema, RetentionMetrics metrics) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.metrics = metrics;
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
        List<TablePruning> run = new ArrayList<>();
        run.add(prune(plan, delete, "event_outbox", OUTBOX, OUTBOX_OVERDUE, plan.outbox()));
        run.add(prune(plan, delete, UNROUTABLE_ROWS, UNROUTABLE, UNROUTABLE_OVERDUE, plan.unroutable()));
        run.add(prune(plan, delete, "event_inbox", INBOX, INBOX_OVERDUE, plan.inbox()));
        run.add(prune(plan, delete, "dead_letter_audit", DEAD_LETTERS, DEAD_LETTERS_OVERDUE, plan.deadLetters()));
        // Idempotency records carry their own expiry: they go as soon as it passed (0 s after it).
        run.add(
                plan.idempotency()
                        ? prune(plan, delete, "idempotency_responses", IDEMPOTENCY, IDEMPOTENCY_OVERDUE, 0)
                        : disabled("idempotency_responses"));
        return run;
    }

    private TablePruning prune(
            RetentionPlan plan, boolean delete, String table, String deletion, String overdue, Duration window) {
        return window.isZero() ? disabled(table) : prune(plan, delete, table, deletion, overdue, window.toSeconds());
    }

    private TablePruning disabled(String table) {
        // A table kept forever is never behind.
        metrics.overdue(schema, table, 0);
        return TablePruning.without(table, TablePruning.Outcome.DISABLED, 0);
    }

    private TablePruning prune(
            RetentionPlan plan, boolean delete, String table, String deletion, String overdue, long seconds) {
        long deleted = 0;
        int statements = 0;
        long longest = 0;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            if (!delete || !lock(connection, TRY_LOCK, table)) {
                // Another server prunes it now (or this is a measurement): how far behind it is, all the same.
                double behind = overdue(connection, plan, overdue, seconds, table);
                return TablePruning.without(
                        table, delete ? TablePruning.Outcome.PRUNED_ELSEWHERE : TablePruning.Outcome.MEASURED, behind);
            }
            double behind;
            try (PreparedStatement batch = connection.prepareStatement(ServiceConfig.qualify(deletion, schema))) {
                batch.setQueryTimeout(plan.statementTimeoutSeconds());
                while (deleted < plan.maxRowsPerRun()) {
                    int size = (int) Math.min(plan.batchSize(), plan.maxRowsPerRun() - deleted);
                    batch.setLong(1, seconds);
                    batch.setInt(2, size);
                    batch.setLong(3, seconds);
                    long started = System.nanoTime();
                    int rows = batch.executeUpdate();
                    longest = Math.max(longest, System.nanoTime() - started);
                    statements++;
                    deleted += rows;
                    metrics.pruned(schema, table, rows);
                    if (rows < size) {
                        break;
                    }
                }
                behind = overdue(connection, plan, overdue, seconds, table);
            } finally {
                unlock(connection, table);
            }
            TablePruning done = new TablePruning(
                    table,
                    TablePruning.Outcome.PRUNED,
                    deleted,
                    statements,
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
                    statements,
                    Duration.ofNanos(longest),
                    false,
                    Double.NaN);
        }
    }

    /** Reads how far behind the table is and reports it; 0 when nothing past the window is left. */
    private double overdue(Connection connection, RetentionPlan plan, String sql, long windowSeconds, String table)
            throws SQLException {
        try (PreparedStatement oldest = connection.prepareStatement(ServiceConfig.qualify(sql, schema))) {
            oldest.setQueryTimeout(plan.statementTimeoutSeconds());
            oldest.setLong(1, windowSeconds);
            oldest.setLong(2, windowSeconds);
            try (ResultSet result = oldest.executeQuery()) {
                double behind = result.next() ? Math.max(0, result.getDouble(1)) : 0;
                metrics.overdue(schema, table, behind);
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
