package dev.durability.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.bench.results.ClaimResult;
import dev.durability.bench.results.CpuShare;
import dev.durability.bench.results.DrainResult;
import dev.durability.bench.results.FilterResult;
import dev.durability.bench.results.LagResult;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.Percentiles;
import dev.durability.bench.results.Results;
import dev.durability.bench.results.RoundTrips;
import dev.durability.bench.results.StagingResult;
import dev.durability.bench.results.StepTime;
import dev.durability.bench.results.SustainedResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final Machine MACHINE = new Machine("2026-12-07T19:00:00Z", 2, 24_105, "15.20");

    @Test
    void aRatioBelowItsTargetByLessThanTheRoundingReadsAsMissedWithAThirdDecimal() {
        FilterResult filter = filter(959.6, 1_378.9);

        String headline = new Report(Results.none().with(filter)).headline().markdown();

        assertThat(headline)
                .contains("| orders API with a fresh Idempotency-Key, 8 in flight | 960 req/s | without a key: 1,379"
                        + " req/s | 0.696 | ≥ 0.70 | **missed** |");
    }

    @Test
    void aRatioThatMeetsItsTargetReadsAsMet() {
        String headline =
                new Report(Results.none().with(filter(1_000, 1_300))).headline().markdown();

        assertThat(headline).contains("| 0.77 | ≥ 0.70 | met |");
    }

    @Test
    void anExperimentThatNeverRanIsNotMeasuredRatherThanMet() {
        String headline = new Report(Results.none()).headline().markdown();

        assertThat(headline)
                .contains("| outbox drain | not measured (`bench/run drain`) |")
                .doesNotContain("met");
    }

    @Test
    void aClaimTwiceAsSlowAtAMillionRowsIsTheLimitOfMet() {
        ClaimResult claim = new ClaimResult(MACHINE, 1_000, 20, 40, 41);

        String headline = new Report(Results.none().with(claim)).headline().markdown();

        assertThat(headline)
                .contains("| claim of 1,000 with 1,000,000 due rows | 40.0 ms | with 1,000 due rows: 20.0 ms | 2.00× |"
                        + " ≤ 2.00× | met |")
                .contains("| claim of 1,000 behind 100,000 rows in backoff | 41.0 ms | with 1,000 due rows: 20.0 ms |"
                        + " 2.05× | ≤ 2.00× | **missed** |");
    }

    @Test
    void aPartOfStagingNoLargerThanTheRunsOwnSpreadIsBelowNoise() {
        // Adds 0.300 ms: the notification 0.020 (below the 0.050 spread), the WAL 0.100, the rest 0.180.
        StagingResult.Cost cost =
                new StagingResult.Cost(0.700, 1.000, 0.980, 0.900, 234, 1_171, 0.3, 0.28, 0.29, 0.17, 0.050);
        StagingResult staging = new StagingResult(
                MACHINE,
                5,
                3,
                cost,
                new StagingResult.Business(1.0, 1.2, 1.2),
                List.of(
                        new StagingResult.Concurrency(16, 6_000, 3_000, 2_900, 2_000, 0.97, 0.66),
                        new StagingResult.Concurrency(64, 6_000, 3_000, 2_600, 2_000, 0.87, 0.66)),
                List.of(new StagingResult.Api(16, 700, 600, 1.17), new StagingResult.Api(64, 760, 470, 1.62)),
                0);

        String report = new Report(Results.none().with(staging)).performance();

        assertThat(report)
                .contains("| the notification to the drain (its trigger and the commit-time queue) | below noise |")
                .contains("bytes a transaction, 234 without the event) | 0.100 ms |")
                .contains("the jsonb envelope, the checks (four variants' medians: twice the spread) | 0.180 ms |")
                .contains("| staging at 64 connections, as OutboxStager writes (pgbench) | 2,600 tps |"
                        + " the same transaction without any wake-up: 3,000 tps | 0.87 | ≥ 0.90 | **missed** |");
    }

    @Test
    void apiLagIsMetOnlyWhenEveryOrderArrivedAndTheConsumersEffectMeetsItToo() {
        Percentiles fast = new Percentiles(5, 20, 40);
        Percentiles slow = new Percentiles(15, 90, 140);
        LagResult.Effect shippedFast = new LagResult.Effect(2_000, fast, 2_000, fast);
        LagResult lag = new LagResult(
                MACHINE,
                20,
                600,
                300,
                List.of(
                        new LagResult.LagLoad(LagResult.Path.API, 100, 2_000, 2_000, fast, shippedFast),
                        new LagResult.LagLoad(
                                LagResult.Path.API,
                                300,
                                6_000,
                                6_000,
                                fast,
                                new LagResult.Effect(6_000, fast, 6_000, slow)),
                        new LagResult.LagLoad(LagResult.Path.SQL, 500, 10_000, 9_999, fast, null)),
                null,
                "");

        String headline = new Report(Results.none().with(lag)).headline().markdown();

        assertThat(headline)
                .contains("| lag through the API at 100 orders/s, to order.placed, p50 / p99 | 5.00 ms / 40.0 ms |"
                        + "  |  | ≤ 20.0 ms / ≤ 100 ms | met |")
                .contains("(300 of 600 orders/s), to order.placed, p99 | 40.0 ms |  |  | ≤ 250 ms | met |")
                .contains("(300 of 600 orders/s), to the consumer's shipments row committed (at most: to the arrival"
                        + " of the shipment.created staged with it), p99 | 140 ms |  |  | ≤ 250 ms | met |")
                .contains("| lag staged in SQL at 500 events/s, p50 / p99 | 5.00 ms / 40.0 ms (9,999 of 10,000 arrived)"
                        + " |  |  | ≤ 10.0 ms / ≤ 50.0 ms | **missed** |");
    }

    @Test
    void aSustainedFigureThatWasNotSampledIsMissedNotFlat() {
        SustainedResult sustained = new SustainedResult(
                MACHINE,
                600,
                60,
                "PT2M",
                "PT4M",
                "PT30S",
                12_000,
                3_000,
                1_000_000,
                List.of(
                        new SustainedResult.Window(180, 180_000, 180_000, 10, 50, 400_000, 700, 4.5),
                        new SustainedResult.Window(600, 180_000, 180_000, 10, 52, -1, -1, -1)));

        String headline = new Report(Results.none().with(sustained)).headline().markdown();

        assertThat(headline)
                .contains("| outbox size on disk under it, the last window against the one ending at 180 s | missing |")
                .contains("| lag p99 under it, the last window against the one ending at 180 s | 1.04× |  |  |"
                        + " flat: ≤ 1.50× | met |");
    }

    @Test
    void theFiltersOwnWorkWithinTheRunsSpreadIsBelowNoise() {
        // Adds 3.9 - 3.0 = 0.9 ms, its round trips 0.3 + 0.3: own work 0.3 ms, within the rounds' 0.6 to 1.1.
        String headline =
                new Report(Results.none().with(filter(1_000, 1_300))).headline().markdown();

        assertThat(headline)
                .contains("| the filter's own work in a fresh key's added median | below noise (0.300 ms; the added"
                        + " median's runs differ by up to 0.50 ms) |");
    }

    @Test
    void theDrainSaysWhereABatchsTimeWentAsTheServerTimedIt() {
        List<StepTime> steps = List.of(
                new StepTime("claim", 100, 101.4),
                new StepTime("send", 100, 38.2),
                new StepTime("confirm", 100, 3.49),
                new StepTime("stamp", 100, 17.0));

        String withSteps = new Report(Results.none().with(drain(steps))).performance();
        String before = new Report(Results.none().with(drain(null))).performance();

        assertThat(withSteps)
                .contains("over the one-server drain (100 batches), the drain's own thread: claim 101 ms, send"
                        + " 38.2 ms, waiting for confirms 3.49 ms; beside it, on the executor, the stamps 17.0 ms a"
                        + " batch.");
        assertThat(before).contains("## Outbox drain").doesNotContain("durability_outbox_drain_step_seconds");
    }

    private static DrainResult drain(List<StepTime> steps) {
        DrainResult.DrainRun run = new DrainResult.DrainRun(7_000, new CpuShare(30, 18, 24));
        RoundTrips trip = new RoundTrips(1_000, 1.2);
        DrainResult.DrainProfile profile = new DrainResult.DrainProfile(trip, trip, trip, trip, 74);
        return new DrainResult(
                MACHINE,
                100_000,
                1_000,
                30_000,
                3_500,
                9_000,
                run,
                run,
                run,
                540,
                20,
                profile,
                profile,
                new DrainResult.CpuSamples(54, List.of(), List.of()),
                steps);
    }

    private static FilterResult filter(double freshThroughput, double noneThroughput) {
        RoundTrips trip = new RoundTrips(1_000, 0.3);
        return new FilterResult(
                MACHINE,
                20,
                3,
                164,
                List.of(0.6, 0.9, 1.1),
                new FilterResult.Mode(noneThroughput, 5, 13, 3.0, 7.8),
                new FilterResult.Mode(freshThroughput, 7.7, 20, 3.9, 9.2),
                new FilterResult.Mode(4_000, 1.6, 7, 2.5, 7.2),
                new FilterResult.FilterProfile(trip, trip, trip, trip, trip, 75),
                0.15,
                0,
                "");
    }
}
