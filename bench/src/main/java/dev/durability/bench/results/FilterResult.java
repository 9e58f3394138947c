package dev.durability.bench.results;

import java.util.List;

/**
 * The idempotency filter on the orders API: without a key, with a fresh key, and replayed.
 *
 * @param latencyRate the fixed rate of the latency runs, a quarter of the unkeyed throughput
 * @param freshAddedRounds what a fresh key added to the median in each latency run: their spread is the noise
 * @param idleRoundTripMs pgbench's one-row insert and commit with the servers idle, for scale
 */
public record FilterResult(
        Machine machine,
        int seconds,
        int rounds,
        int latencyRate,
        List<Double> freshAddedRounds,
        Mode none,
        Mode fresh,
        Mode replay,
        FilterProfile profile,
        double idleRoundTripMs,
        long errors,
        String errorDetail) {

    /** One mode's means over the rounds: throughput with 8 in flight, and latency at the fixed rate. */
    public record Mode(
            double throughput, double throughputP50, double throughputP99, double latencyP50, double latencyP99) {}

    /** Round trips in one more latency run: the filter's claim and finalize, the stager's and the order's inserts. */
    public record FilterProfile(
            RoundTrips claims,
            RoundTrips finalizes,
            RoundTrips stages,
            RoundTrips orders,
            RoundTrips all,
            double machineBusy) {}

    /** What a fresh key adds to the median at the fixed rate. */
    public double freshAddedMs() {
        return fresh.latencyP50() - none.latencyP50();
    }

    /** The two round trips a fresh key's contract needs: its claim and its finalize. */
    public double freshRoundTripsMs() {
        return profile.claims().meanMs() + profile.finalizes().meanMs();
    }

    /** The largest difference between two latency runs in what a fresh key added. */
    public double freshAddedSpread() {
        return freshAddedRounds.stream().mapToDouble(Double::doubleValue).max().orElse(0)
                - freshAddedRounds.stream()
                        .mapToDouble(Double::doubleValue)
                        .min()
                        .orElse(0);
    }

    /** What a fresh key adds beyond its two round trips: the filter's own work. */
    public double freshOwnMs() {
        return freshAddedMs() - freshRoundTripsMs();
    }
}
