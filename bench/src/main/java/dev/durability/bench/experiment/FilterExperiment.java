package dev.durability.bench.experiment;

import dev.durability.bench.db.CommitLimit;
import dev.durability.bench.db.Database;
import dev.durability.bench.http.OrderClients;
import dev.durability.bench.http.OrderClients.Mode;
import dev.durability.bench.http.OrderClients.Outcome;
import dev.durability.bench.profile.CpuTime;
import dev.durability.bench.profile.FlightRecorder;
import dev.durability.bench.profile.Recording;
import dev.durability.bench.results.FilterResult;
import dev.durability.bench.results.FilterResult.FilterProfile;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.RoundTrips;
import dev.durability.bench.server.BenchServers;
import dev.durability.it.LibertyServer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The idempotency filter on {@code POST /api/orders}: without an {@code Idempotency-Key} (passed through), with a
 * fresh key (claim, run, record: two more short transactions), and with one of 500 keys already answered (one
 * look-up; the handler does not run). Throughput with 8 requests in flight, one mode per run, the modes' runs
 * interleaved; latency at a fixed rate (a quarter of the unkeyed throughput), the modes taking turns request by
 * request. Means of the rounds, each run starting with the drain and the shipments consumer idle. One more latency
 * run is profiled: the filter's claim and finalize, the stager's and the order's inserts.
 */
public final class FilterExperiment {
    private static final List<Mode> MODES = List.of(Mode.NONE, Mode.FRESH, Mode.REPLAY);
    private static final List<String> TRIPS = List.of(
            "IdempotencyRecords\\.claim$",
            "IdempotencyRecords\\.succeed$",
            "OutboxStager\\.stage$",
            "OrderService\\.flush$");

    private final BenchServers servers;
    private final int seconds;
    private final int rounds;
    private final Path work;

    public FilterExperiment(BenchServers servers, int seconds, int rounds, Path work) {
        this.servers = servers;
        this.seconds = seconds;
        this.rounds = rounds;
        this.work = work;
    }

    public FilterResult run() throws Exception {
        double idleRoundTripMs = 1_000 / CommitLimit.measure(1, 10);
        LibertyServer server = servers.first();
        OrderClients clients = new OrderClients(server.uri());
        // Warm-up: JIT, pools, statement caches, for both paths.
        clients.throughput(List.of(Mode.NONE), 8, 10);
        clients.throughput(List.of(Mode.FRESH), 8, 10);
        Map<String, Long> errors = new TreeMap<>();
        Map<Mode, double[]> sums = new EnumMap<>(Mode.class);
        MODES.forEach(m -> sums.put(m, new double[5]));
        for (int round = 0; round < rounds; round++) {
            for (Mode mode : MODES) {
                Quiet.await(BenchServers.SCHEMA);
                Outcome outcome = clients.throughput(List.of(mode), 8, seconds);
                OrderClients.Figures figures = outcome.figures().get(0);
                add(sums.get(mode), 0, figures.perSecond());
                add(sums.get(mode), 1, figures.p50());
                add(sums.get(mode), 2, figures.p99());
                outcome.errors().forEach((status, count) -> errors.merge(status, count, Long::sum));
            }
        }
        // A quarter of the unkeyed throughput (its mean), where neither the server nor the database queues.
        int rate = (int) (sums.get(Mode.NONE)[0] / 4);
        List<Double> freshAdded = new java.util.ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            Quiet.await(BenchServers.SCHEMA);
            Outcome outcome = clients.latency(MODES, rate, seconds);
            freshAdded.add(
                    outcome.figures().get(1).p50() - outcome.figures().get(0).p50());
            for (int m = 0; m < MODES.size(); m++) {
                add(sums.get(MODES.get(m)), 3, outcome.figures().get(m).p50());
                add(sums.get(MODES.get(m)), 4, outcome.figures().get(m).p99());
            }
            outcome.errors().forEach((status, count) -> errors.merge(status, count, Long::sum));
        }
        FilterProfile profile = profiled(server, clients, rate);
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        return new FilterResult(
                Machine.now(Database.serverVersion()),
                seconds,
                rounds,
                rate,
                freshAdded,
                mode(sums.get(Mode.NONE)),
                mode(sums.get(Mode.FRESH)),
                mode(sums.get(Mode.REPLAY)),
                profile,
                idleRoundTripMs,
                errorCount,
                errors.isEmpty() ? "" : errors.toString());
    }

    private FilterProfile profiled(LibertyServer server, OrderClients clients, int rate) throws Exception {
        Quiet.await(BenchServers.SCHEMA);
        FlightRecorder recorder = new FlightRecorder(server.pid());
        Path file = work.resolve("filter.jfr");
        long[] before = CpuTime.machineTicks();
        recorder.start("filter", file, true);
        clients.latency(MODES, rate, seconds);
        recorder.stop("filter");
        double busy = CpuTime.busyPercent(before, CpuTime.machineTicks());
        List<RoundTrips> trips = Recording.of(file).roundTrips(TRIPS);
        return new FilterProfile(trips.get(0), trips.get(1), trips.get(2), trips.get(3), trips.get(4), busy);
    }

    private void add(double[] sums, int figure, double value) {
        sums[figure] += value / rounds;
    }

    private static FilterResult.Mode mode(double[] means) {
        return new FilterResult.Mode(means[0], means[1], means[2], means[3], means[4]);
    }
}
