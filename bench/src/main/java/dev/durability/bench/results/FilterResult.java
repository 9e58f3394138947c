package dev.durability.bench.results;

/**
 * The idempotency filter on the orders API: without a key, with a fresh key, and replayed.
 *
 * @param latencyRate the fixed rate of the latency runs, a quarter of the unkeyed throughput
 * @param idleRoundTripMs pgbench's one-row insert and commit on the idle machine, for scale
 */
public record FilterResult(
        Machine machine,
        int seconds,
        int rounds,
        int latencyRate,
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

    /** What a fresh key adds beyond its two round trips: the filter's own work. */
    public double freshOwnMs() {
        return freshAddedMs() - freshRoundTripsMs();
    }
}
