package dev.durability.bench.experiment;

import dev.durability.bench.broker.Arrivals;
import dev.durability.bench.db.Database;
import dev.durability.bench.http.OrderClients;
import dev.durability.bench.load.Commits;
import dev.durability.bench.load.Schedule;
import dev.durability.bench.load.SqlStaging;
import dev.durability.bench.profile.CpuTime;
import dev.durability.bench.profile.FlightRecorder;
import dev.durability.bench.profile.Recording;
import dev.durability.bench.results.LagResult;
import dev.durability.bench.results.LagResult.LagLoad;
import dev.durability.bench.results.LagResult.LagProfile;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.Percentiles;
import dev.durability.bench.results.RoundTrips;
import dev.durability.bench.server.BenchServers;
import dev.durability.it.LibertyServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Publish lag at offered loads, one server, each load starting on an idle server: orders through the API at 100/s
 * and at half the API's unkeyed throughput (measured first, after a warm-up that compiles, pools and caches the
 * request path as a server in service has it), then events staged in SQL at 500/s and 2,000/s (the API alone cannot
 * offer that much on a small machine). Each load runs 5 s before the seconds that count. The lag is from the commit
 * (through the API: the 201's arrival) to the arrival at a queue of the benchmark's own, and through the API also to
 * the demo consumer's effect, its shipments row committed, which lies between two measured instants: the start of
 * the consumer's transaction (the row's created_at) and the arrival of the shipment.created it staged in the same
 * transaction (which adds that event's own publish lag). A second run at 500/s is profiled.
 */
public final class LagExperiment {
    private static final String QUEUE = "bench.lag";
    private static final String SHIPPED_QUEUE = "bench.lag.shipped";
    private static final String SQL_EVENT_TYPE = "bench.lag";
    private static final int WARM_UP_SECONDS = 5;

    private final BenchServers servers;
    private final int seconds;
    private final Path work;

    public LagExperiment(BenchServers servers, int seconds, Path work) {
        this.servers = servers;
        this.seconds = seconds;
        this.work = work;
    }

    public LagResult run() throws Exception {
        LibertyServer server = servers.first();
        OrderClients clients = new OrderClients(server.uri());
        clients.throughput(List.of(OrderClients.Mode.NONE), 8, 20);
        Quiet.await(BenchServers.SCHEMA);
        double apiThroughput = clients.throughput(List.of(OrderClients.Mode.NONE), 8, 10)
                .figures()
                .get(0)
                .perSecond();
        List<LagLoad> loads = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        loads.add(throughApi(clients, 100, errors));
        int halfRate = (int) Math.round(apiThroughput / 2);
        loads.add(throughApi(clients, halfRate, errors));
        loads.add(inSql(500, WARM_UP_SECONDS, errors).load());
        LagProfile profile = profiled(server, errors);
        loads.add(inSql(2_000, WARM_UP_SECONDS, errors).load());
        return new LagResult(
                Machine.now(Database.serverVersion()),
                seconds,
                apiThroughput,
                halfRate,
                loads,
                profile,
                String.join("; ", errors));
    }

    private LagLoad throughApi(OrderClients clients, int rate, List<String> errors) throws Exception {
        Quiet.await(BenchServers.SCHEMA);
        Commits commits;
        List<Long> lags;
        List<Long> announced;
        try (Arrivals placed = Arrivals.byField(QUEUE, "order.placed", "aggregate_id");
                Arrivals shipped = Arrivals.byField(SHIPPED_QUEUE, "shipment.created", "order_id")) {
            commits = clients.placeOnSchedule(Schedule.of(rate, WARM_UP_SECONDS, seconds));
            placed.awaitAll(commits.nanos());
            shipped.awaitAll(commits.nanos());
            lags = placed.lags(commits.nanos());
            announced = shipped.lags(commits.nanos());
        }
        note(errors, "API " + rate + "/s", commits);
        Quiet.await(BenchServers.SCHEMA);
        List<Long> begun = shipmentsBegun(commits.wallMicros());
        return new LagLoad(
                LagResult.Path.API,
                rate,
                commits.nanos().size(),
                lags.size(),
                Percentiles.ofSortedNanos(lags),
                new LagResult.Effect(
                        begun.size(),
                        Percentiles.ofSortedNanos(begun),
                        announced.size(),
                        Percentiles.ofSortedNanos(announced)));
    }

    /** A load in SQL and what it committed. */
    private record SqlRun(LagLoad load, Commits commits) {}

    private SqlRun inSql(int rate, int warmUp, List<String> errors) throws Exception {
        Quiet.await(BenchServers.SCHEMA);
        try (Arrivals arrivals = Arrivals.byEnvelopeId(QUEUE, SQL_EVENT_TYPE)) {
            Commits commits =
                    new SqlStaging(BenchServers.SCHEMA, SQL_EVENT_TYPE).atRate(Schedule.of(rate, warmUp, seconds));
            arrivals.awaitAll(commits.nanos());
            List<Long> lags = arrivals.lags(commits.nanos());
            note(errors, "SQL " + rate + "/s", commits);
            return new SqlRun(
                    new LagLoad(
                            LagResult.Path.SQL,
                            rate,
                            commits.nanos().size(),
                            lags.size(),
                            Percentiles.ofSortedNanos(lags),
                            null),
                    commits);
        }
    }

    /** One more run at 500/s, warm already, with the server's every socket call and its pauses recorded. */
    private LagProfile profiled(LibertyServer server, List<String> errors) throws Exception {
        Quiet.await(BenchServers.SCHEMA);
        FlightRecorder recorder = new FlightRecorder(server.pid());
        Path file = work.resolve("lag500.jfr");
        long[] before = CpuTime.machineTicks();
        recorder.start("lag500", file, true);
        SqlRun run = inSql(500, 0, errors);
        recorder.stop("lag500");
        double busy = CpuTime.busyPercent(before, CpuTime.machineTicks());
        Recording recording = Recording.of(file);
        List<RoundTrips> trips = recording.roundTrips(DrainExperiment.DRAIN_TRIPS);
        return new LagProfile(
                run.commits().nanos().size(),
                trips.get(0),
                trips.get(1),
                trips.get(2),
                trips.get(3),
                busy,
                recording.gcPauses());
    }

    /**
     * Commit (the 201's arrival, wall clock) to the start of the transaction that wrote each order's shipments row
     * (its created_at, on the database's clock: the same host's), sorted, in nanoseconds.
     */
    private static List<Long> shipmentsBegun(Map<String, Long> committedMicros) throws Exception {
        List<Long> lags = new ArrayList<>();
        try (Connection connection = Database.connect();
                PreparedStatement shipped = connection.prepareStatement("SELECT CAST(order_id AS text),"
                        + " CAST(EXTRACT(EPOCH FROM created_at) * 1000000 AS bigint) FROM " + BenchServers.SCHEMA
                        + ".demo_shipments WHERE order_id = ANY (CAST(? AS uuid[]))")) {
            shipped.setString(1, "{" + String.join(",", committedMicros.keySet()) + "}");
            try (ResultSet rows = shipped.executeQuery()) {
                while (rows.next()) {
                    Long committed = committedMicros.get(rows.getString(1));
                    if (committed != null) {
                        lags.add(Math.max(0, rows.getLong(2) - committed) * 1_000);
                    }
                }
            }
        }
        Collections.sort(lags);
        return lags;
    }

    private static void note(List<String> errors, String load, Commits commits) {
        if (commits.refusedCount() > 0) {
            errors.add(load + ": " + commits.refusedCount() + " not committed (refused or failed)");
        }
    }
}
