package dev.durability.bench.experiment;

import dev.durability.bench.broker.Broker;
import dev.durability.bench.broker.PerfTest;
import dev.durability.bench.db.CommitLimit;
import dev.durability.bench.db.Database;
import dev.durability.bench.http.ServerMetrics;
import dev.durability.bench.profile.CpuTime;
import dev.durability.bench.profile.FlightRecorder;
import dev.durability.bench.profile.Recording;
import dev.durability.bench.results.DrainResult;
import dev.durability.bench.results.DrainResult.DrainProfile;
import dev.durability.bench.results.DrainResult.DrainRun;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.RoundTrips;
import dev.durability.bench.results.StepTime;
import dev.durability.bench.server.BenchServers;
import dev.durability.it.LibertyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The outbox drain: {@code rows} pending rows seeded in one transaction, drained by one server to a bound durable
 * queue that a sink empties as PerfTest's consumer empties its own; then by two servers, then three, on the same
 * schema. Limits: RabbitMQ PerfTest's confirmed publishes of the same size, and PostgreSQL's commit rate. Each drain
 * starts on a vacuumed outbox, as autovacuum would leave it (this machine runs with autovacuum off). The one-server
 * drain is sampled by JFR (8 s) and its CPU time split by process; one more drain of one and of two servers each is
 * profiled with every socket call timed, to compare their round trips.
 */
public final class DrainExperiment {
    private static final String EVENT_TYPE = "bench.drained";
    private static final String QUEUE = "bench.drained";
    /** An envelope's size on the wire, as PerfTest's messages. */
    private static final int MESSAGE_BYTES = 420;
    /** The drain's database round trips: its claims' statements, its claim transactions' commits, its stamps. */
    static final List<String> DRAIN_TRIPS = List.of(
            "OutboxClaims\\.claim$", "OutboxDrainTimer\\.inTransaction$", "OutboxClaims\\.(lambda.)?stamp|ClaimStamps");

    /** The server's own timing of each step a batch goes through (docs/metrics.md). */
    private static final String STEP_METRIC = "durability_outbox_drain_step_seconds";

    private static final List<String> STEPS = List.of("claim", "send", "confirm", "stamp");

    private final BenchServers servers;
    private final int rows;
    private final int batch;
    private final Path work;

    public DrainExperiment(BenchServers servers, int rows, int batch, Path work) {
        this.servers = servers;
        this.rows = rows;
        this.batch = batch;
        this.work = work;
    }

    public DrainResult run() throws Exception {
        double commitsOne = CommitLimit.measure(1, 10);
        double commitsFour = CommitLimit.measure(4, 10);
        double perfTest = PerfTest.confirmedPublishes(MESSAGE_BYTES, 15);

        LibertyServer first = servers.first();
        FlightRecorder recorder = new FlightRecorder(first.pid());
        Broker.bind(QUEUE, EVENT_TYPE);
        try (AutoCloseable sink = Broker.sink(QUEUE)) {
            Path samples = work.resolve("drain-samples.jfr");
            // 8 s of samples from 3 s in: the drain's steady state, not its first claims.
            String metricsBefore = ServerMetrics.read(first.uri());
            DrainRun one = drain(() -> inBackground(() -> {
                Thread.sleep(3_000);
                recorder.startFor("bench-samples", samples, 8);
            }));
            List<StepTime> steps = steps(metricsBefore, ServerMetrics.read(first.uri()));
            double rss = residentMiB(first.pid());
            double lagP95 = Database.number("SELECT coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY"
                    + " EXTRACT(EPOCH FROM published_at - created_at)), 0) FROM " + BenchServers.SCHEMA
                    + ".event_outbox WHERE event_type = '" + EVENT_TYPE + "' AND published_at IS NOT NULL");
            awaitFile(samples);
            Recording sampled = Recording.of(samples);
            DrainProfile oneProfile = profiled(recorder, "drain1");

            servers.drainer(2);
            DrainRun two = drain(() -> {});
            DrainProfile twoProfile = profiled(recorder, "drain2");
            servers.drainer(3);
            DrainRun three = drain(() -> {});
            servers.stop(servers.drainer(3));
            servers.stop(servers.drainer(2));
            return new DrainResult(
                    Machine.now(Database.serverVersion()),
                    rows,
                    batch,
                    perfTest,
                    commitsOne,
                    commitsFour,
                    one,
                    two,
                    three,
                    rss,
                    lagP95,
                    oneProfile,
                    twoProfile,
                    new DrainResult.CpuSamples(sampled.samples(), sampled.leafFrames(6), sampled.ownFrames(6)),
                    steps);
        } finally {
            Broker.delete(QUEUE);
        }
    }

    /** Something to start once the backlog is seeded, as the drain begins. */
    private interface AtStart {
        void run() throws Exception;
    }

    /**
     * Seeds the backlog and waits until the drain published every seeded row. Only the seeded rows count: anything
     * else the servers stage meanwhile may well come back unroutable and never be published.
     */
    private DrainRun drain(AtStart atStart) throws Exception {
        Database.execute("VACUUM ANALYZE " + BenchServers.SCHEMA + ".event_outbox");
        Database.execute("INSERT INTO " + BenchServers.SCHEMA + ".event_outbox (id, aggregate_id, event_type, envelope)"
                + " SELECT id, agg, '" + EVENT_TYPE + "', jsonb_build_object("
                + " 'id', id, 'event_type', '" + EVENT_TYPE + "', 'source_service', 'bench', 'aggregate_id', agg,"
                + " 'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
                + " 'schema_version', 1, 'correlation_id', id, 'causation_id', null,"
                + " 'payload', jsonb_build_object('n', n, 'sku', 'book-' || n, 'quantity', 1))"
                + " FROM (SELECT " + BenchServers.SCHEMA + ".durability_new_uuid7() AS id, gen_random_uuid() AS agg, n"
                + " FROM generate_series(1, " + rows + ") n) s");
        CpuTime cpu = CpuTime.start(servers.pids());
        long start = System.nanoTime();
        atStart.run();
        while (Database.number("SELECT count(*) FROM " + BenchServers.SCHEMA + ".event_outbox WHERE event_type = '"
                        + EVENT_TYPE + "' AND published_at IS NULL")
                > 0) {
            Thread.sleep(200);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new DrainRun(rows / seconds, cpu.share());
    }

    /** One more drain with the first server's every socket call timed: its database round trips. */
    private DrainProfile profiled(FlightRecorder recorder, String name) throws Exception {
        Path file = work.resolve(name + ".jfr");
        long[] before = CpuTime.machineTicks();
        recorder.start(name, file, true);
        drain(() -> {});
        recorder.stop(name);
        double busy = CpuTime.busyPercent(before, CpuTime.machineTicks());
        List<RoundTrips> trips = Recording.of(file).roundTrips(DRAIN_TRIPS);
        return new DrainProfile(trips.get(0), trips.get(1), trips.get(2), trips.get(3), busy);
    }

    /** Each drain step's batches and mean time between two readings of the server's step metric. */
    private static List<StepTime> steps(String before, String after) {
        return STEPS.stream()
                .map(step -> {
                    String label = "step=\"" + step + "\"";
                    double count = ServerMetrics.sample(after, STEP_METRIC + "_count", label)
                            - ServerMetrics.sample(before, STEP_METRIC + "_count", label);
                    double sum = ServerMetrics.sample(after, STEP_METRIC + "_sum", label)
                            - ServerMetrics.sample(before, STEP_METRIC + "_sum", label);
                    if (count <= 0) {
                        throw new IllegalStateException("the server timed no batch's " + step + " in its drain: is "
                                + STEP_METRIC + " on its /metrics?");
                    }
                    return new StepTime(step, Math.round(count), sum * 1000 / count);
                })
                .toList();
    }

    private static double residentMiB(long pid) throws java.io.IOException {
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                        .filter(line -> line.startsWith("VmRSS:"))
                        .mapToLong(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
                        .findFirst()
                        .orElseThrow()
                / 1024.0;
    }

    private static void inBackground(AtStart work) {
        Thread thread = new Thread(() -> {
            try {
                work.run();
            } catch (Exception e) {
                System.err.println("the drain's sampling did not start: " + e);
            }
        });
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * A recording of a fixed duration is written when it ends, which may be after the drain did: waits until the
     * file is there and no longer grows.
     */
    private static void awaitFile(Path file) throws Exception {
        long size = -1;
        for (int i = 0; i < 60; i++) {
            Thread.sleep(500);
            if (Files.exists(file)) {
                long now = Files.size(file);
                if (now > 0 && now == size) {
                    return;
                }
                size = now;
            }
        }
        throw new IllegalStateException("the drain's JFR recording " + file + " was never written");
    }
}
