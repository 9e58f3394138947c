package dev.durability.bench.db;

import java.io.IOException;
import java.sql.SQLException;

/**
 * PostgreSQL's commit rate for the outbox's kind of write: one row with a jsonb body inserted and committed per
 * transaction, into a table of its own, through pgbench. Its ids are random: ten seconds into an empty table keep
 * its whole index in memory either way.
 */
public final class CommitLimit {
    private static final String SCHEMA = "durability_bench_raw";

    private CommitLimit() {}

    /** Commits per second through {@code connections} connections over {@code seconds}. */
    public static double measure(int connections, int seconds) throws IOException, SQLException {
        Database.execute(
                "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE",
                "CREATE SCHEMA " + SCHEMA,
                "CREATE TABLE " + SCHEMA + ".commits (id uuid PRIMARY KEY, body jsonb NOT NULL,"
                        + " created_at timestamptz NOT NULL DEFAULT now())");
        try {
            return Pgbench.timed(
                            Pgbench.script(
                                    "commit",
                                    "INSERT INTO " + SCHEMA + ".commits (id, body)"
                                            + " VALUES (gen_random_uuid(), '{\"event_type\":\"bench.raw\"}');\n"),
                            connections,
                            seconds,
                            false)
                    .tps();
        } finally {
            Database.execute("DROP SCHEMA " + SCHEMA + " CASCADE");
        }
    }
}
