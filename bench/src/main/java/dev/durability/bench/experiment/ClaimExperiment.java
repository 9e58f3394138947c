package dev.durability.bench.experiment;

import dev.durability.bench.db.ClaimStatement;
import dev.durability.bench.db.Database;
import dev.durability.bench.db.Pgbench;
import dev.durability.bench.results.ClaimResult;
import dev.durability.bench.results.Machine;
import dev.durability.bench.server.BenchServers;
import java.nio.file.Path;

/**
 * Claim time as the outbox grows: the drain's claim statement as it ships, run by pgbench 200 times in transactions
 * that roll back, against 1,000 and 1,000,000 due rows, and against 1,000 due rows behind 100,000 rows waiting out a
 * backoff (a broker outage's backlog). On the benchmark's schema with no server draining it.
 */
public final class ClaimExperiment {
    private static final String S = BenchServers.SCHEMA;

    private final BenchServers servers;
    private final int batch;

    public ClaimExperiment(BenchServers servers, int batch) {
        this.servers = servers;
        this.batch = batch;
    }

    public ClaimResult run() throws Exception {
        // The schema as the servers migrated it, and none of them draining it.
        servers.first();
        servers.close();
        Path claim = Pgbench.script(
                "claim",
                "BEGIN;\n" + ClaimStatement.planSettings().replace('\n', ' ') + ";\n"
                        + ClaimStatement.of(S, batch).replace('\n', ' ') + ";\nROLLBACK;\n");
        Database.execute("TRUNCATE " + S + ".event_outbox");
        seed(1_000, "0 s", null);
        double atThousand = Pgbench.counted(claim, 200).latencyMs();
        seed(999_000, "1 hour", null);
        double atMillion = Pgbench.counted(claim, 200).latencyMs();
        Database.execute("TRUNCATE " + S + ".event_outbox");
        seed(100_000, "1 hour", "1 hour");
        seed(1_000, "0 s", null);
        double behindBackoff = Pgbench.counted(claim, 200).latencyMs();
        Database.execute("TRUNCATE " + S + ".event_outbox");
        return new ClaimResult(Machine.now(Database.serverVersion()), batch, atThousand, atMillion, behindBackoff);
    }

    /** {@code rows} due rows created {@code age} ago, or in backoff until {@code backoff} from now. */
    private static void seed(int rows, String age, String backoff) throws Exception {
        boolean waiting = backoff != null;
        Database.execute(
                "INSERT INTO " + S + ".event_outbox (id, aggregate_id, event_type, envelope, created_at, attempts,"
                        + " next_attempt_at, last_error)"
                        + " SELECT id, agg, 'bench.claimed', jsonb_build_object('id', id, 'event_type', 'bench.claimed',"
                        + " 'source_service', 'bench', 'aggregate_id', agg, 'occurred_at', '2026-01-01T00:00:00.000Z',"
                        + " 'schema_version', 1, 'correlation_id', id, 'causation_id', null, 'payload',"
                        + " jsonb_build_object('n', n, 'sku', 'book-' || n, 'quantity', 1)), at, "
                        + (waiting ? 3 : 0) + ", "
                        + (waiting ? "now() + interval '" + backoff + "'" : "NULL") + ", "
                        + (waiting ? "'broker unreachable (bench)'" : "NULL")
                        + " FROM (SELECT " + S + ".durability_new_uuid7(at) AS id, gen_random_uuid() AS agg, n, at"
                        + " FROM (SELECT n, now() - interval '" + age + "' + n * interval '1 microsecond' AS at"
                        + " FROM generate_series(1, " + rows + ") n) t) s",
                "VACUUM ANALYZE " + S + ".event_outbox");
    }
}
