package dev.durability.bench.results;

import java.util.List;

/** Latency percentiles in milliseconds. */
public record Percentiles(double p50, double p95, double p99) {

    /** The percentiles of latencies in nanoseconds, sorted ascending; none when there are none. */
    public static Percentiles ofSortedNanos(List<Long> sorted) {
        if (sorted.isEmpty()) {
            return null;
        }
        return new Percentiles(at(sorted, 0.50), at(sorted, 0.95), at(sorted, 0.99));
    }

    /** The nearest-rank percentile {@code p} of sorted nanoseconds, in milliseconds. */
    public static double at(List<Long> sorted, double p) {
        int rank = (int) Math.min(sorted.size() - 1, Math.max(0, Math.ceil(sorted.size() * p) - 1));
        return sorted.get(rank) / 1e6;
    }
}
