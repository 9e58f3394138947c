package dev.durability.bench.experiment;

import dev.durability.bench.broker.Arrivals;
import dev.durability.bench.db.ClaimStatement;
import dev.durability.bench.db.CommitLimit;
import dev.durability.bench.db.Database;
import dev.durability.bench.http.ServerMetrics;
import dev.durability.bench.load.Commits;
import dev.durability.bench.load.SqlStaging;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.Percentiles;
import dev.durability.bench.results.SustainedResult;
import dev.durability.bench.results.SustainedResult.Window;
import dev.durability.bench.server.BenchServers;
import dev.durability.it.LibertyServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Sustained staging under short retention windows (docs/decisions/0092): a server of its own keeps published outbox
 * rows for 2 minutes (the inbox 4) and runs retention every 30 s, while four connections stage in SQL as fast as
 * they commit, with autovacuum on for the run as a production database runs it (restored after). At the end of each
 * window: the outbox's rows and size with its indexes, and the mean of 20 runs of the drain's claim statement on the
 * live table (rolled back); the lag of the events committed in each window. Retention must hold the size flat, and
 * the claim time and the lag with it. The limit: pgbench's four-connection commit rate, measured first.
 */
public final class SustainedExperiment {
    private static final String SCHEMA = "durability_sustained";
    private static final String EVENT_TYPE = "bench.sustained";
    private static final int PORT = 9283;
    private static final int CLAIMS_PER_SAMPLE = 20;
    private static final String OUTBOX_WINDOW = "PT2M";
    private static final String INBOX_WINDOW = "PT4M";
    private static final String INTERVAL = "PT30S";

    private final int seconds;
    private final int window;
    private final int batch;

    public SustainedExperiment(int seconds, int window, int batch) {
        this.seconds = seconds;
        this.window = window;
        this.batch = batch;
    }

    public SustainedResult run() throws Exception {
        double commitsFour = CommitLimit.measure(4, 10);
        String autovacuum = Database.text("SHOW autovacuum");
        // Retention deletes, the drain stamps: dead tuples that only vacuum reclaims. This machine may run with
        // autovacuum off (the tests' database); a production one runs it.
        Database.execute("ALTER SYSTEM SET autovacuum = on", "SELECT pg_reload_conf()");
        LibertyServer server = null;
        try {
            server = BenchServers.startAlone(
                    "durability-sustained",
                    PORT,
                    SCHEMA,
                    Map.of(
                            "DURABILITY_INSTANCE_NAME",
                            "sustained",
                            "DURABILITY_OUTBOX_BATCH_SIZE",
                            Integer.toString(batch),
                            "DURABILITY_RETENTION_OUTBOX_WINDOW",
                            OUTBOX_WINDOW,
                            "DURABILITY_RETENTION_INBOX_WINDOW",
                            INBOX_WINDOW,
                            "DURABILITY_RETENTION_INTERVAL",
                            INTERVAL,
                            "DURABILITY_RETENTION_JITTER_SECONDS",
                            "0"));
            List<Window> windows = stage();
            double staged = windows.stream().mapToLong(Window::committed).sum() / (double) seconds;
            long pruned = (long) ServerMetrics.sample(
                    ServerMetrics.read(server.uri()),
                    "durability_retention_pruned_rows_total",
                    "table=\"event_outbox\"");
            return new SustainedResult(
                    Machine.now(Database.serverVersion()),
                    seconds,
                    window,
                    OUTBOX_WINDOW,
                    INBOX_WINDOW,
                    INTERVAL,
                    commitsFour,
                    staged,
                    pruned,
                    windows);
        } finally {
            if (server != null) {
                server.stop();
            }
            Database.execute("ALTER SYSTEM SET autovacuum = " + autovacuum, "SELECT pg_reload_conf()");
            Database.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    /** Stages for the run's seconds, sampling the table at the end of each window; the windows' figures. */
    private List<Window> stage() throws Exception {
        int windows = seconds / window;
        Sample[] samples = new Sample[windows];
        long windowNanos = TimeUnit.SECONDS.toNanos(window);
        String claim = ClaimStatement.of(SCHEMA, batch);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        Commits commits;
        List<List<Long>> lags = new ArrayList<>();
        long[] arrivedPerWindow = new long[windows];
        long[] committedPerWindow = new long[windows];
        try (Arrivals arrivals = Arrivals.byEnvelopeId("bench.sustained", EVENT_TYPE);
                Connection database = Database.connect()) {
            long start = System.nanoTime();
            for (int i = 0; i < windows; i++) {
                int index = i;
                sampler.schedule(
                        () -> samples[index] = sample(database, claim),
                        start + (i + 1) * windowNanos - System.nanoTime(),
                        TimeUnit.NANOSECONDS);
            }
            commits = new SqlStaging(SCHEMA, EVENT_TYPE).asFastAsTheyCommit(start + windows * windowNanos);
            sampler.shutdown();
            sampler.awaitTermination(2, TimeUnit.MINUTES);
            arrivals.awaitAll(commits.nanos());
            for (int i = 0; i < windows; i++) {
                lags.add(new ArrayList<>());
            }
            commits.nanos().forEach((id, at) -> {
                int index = (int) Math.min(windows - 1, Math.max(0, (at - start) / windowNanos));
                committedPerWindow[index]++;
                Long arrival = arrivals.at(id);
                if (arrival != null) {
                    arrivedPerWindow[index]++;
                    lags.get(index).add(Math.max(0, arrival - at));
                }
            });
        } finally {
            sampler.shutdownNow();
        }
        List<Window> result = new ArrayList<>();
        for (int i = 0; i < windows; i++) {
            Collections.sort(lags.get(i));
            Percentiles lag = Percentiles.ofSortedNanos(lags.get(i));
            // A sample that failed (it said why on stderr) shows as -1: no figure rather than a false one.
            Sample sample = samples[i] == null ? Sample.MISSING : samples[i];
            result.add(new Window(
                    (i + 1) * window,
                    committedPerWindow[i],
                    arrivedPerWindow[i],
                    lag == null ? -1 : lag.p50(),
                    lag == null ? -1 : lag.p99(),
                    sample.rows(),
                    sample.mib(),
                    sample.claimMs()));
        }
        return result;
    }

    /** The outbox's rows, its size with its indexes, and the mean of a few claims, at the end of a window. */
    private record Sample(long rows, double mib, double claimMs) {
        static final Sample MISSING = new Sample(-1, -1, -1);
    }

    private static Sample sample(Connection database, String claim) {
        try (Statement statement = database.createStatement()) {
            long rows;
            double mib;
            // A partitioned table's size is its partitions' (docs/decisions/0093-outbox-partitioned-by-day.md).
            try (ResultSet result = statement.executeQuery("SELECT (SELECT count(*) FROM " + SCHEMA + ".event_outbox),"
                    + " (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('" + SCHEMA
                    + ".event_outbox')) / 1048576.0")) {
                result.next();
                rows = result.getLong(1);
                mib = result.getDouble(2);
            }
            database.setAutoCommit(false);
            long total = 0;
            for (int i = 0; i < CLAIMS_PER_SAMPLE; i++) {
                statement.execute(ClaimStatement.planSettings());
                long start = System.nanoTime();
                statement.execute(claim);
                total += System.nanoTime() - start;
                database.rollback();
            }
            database.setAutoCommit(true);
            return new Sample(rows, mib, total / 1e6 / CLAIMS_PER_SAMPLE);
        } catch (Exception e) {
            System.err.println("sample failed: " + e);
            try {
                database.rollback();
                database.setAutoCommit(true);
            } catch (Exception ignored) {
                // The next sample fails the same way and says so.
            }
            return null;
        }
    }
}
