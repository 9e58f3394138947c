package dev.durability.bench.results;

import java.util.List;

/**
 * Sustained staging under short retention windows: the outbox's size, the claim time and the lag, window by window.
 *
 * @param commitsFour pgbench's four-connection commit limit, measured first
 * @param pruned outbox rows retention deleted during the run
 */
public record SustainedResult(
        Machine machine,
        int seconds,
        int window,
        String outboxWindow,
        String inboxWindow,
        String interval,
        double commitsFour,
        double stagedPerSecond,
        long pruned,
        List<Window> windows) {

    /** The end of one window: what committed and arrived in it, the lag, the table, the claim. */
    public record Window(
            int endSeconds,
            long committed,
            long arrived,
            double lagP50,
            double lagP99,
            long outboxRows,
            double outboxMiB,
            double claimMs) {}

    /** From this many seconds the table holds a whole outbox window and retention has run on it. */
    public static final int SETTLED_SECONDS = 180;

    /**
     * The last window's figure against the one at {@link #SETTLED_SECONDS}: before, the table only fills. Flat is
     * within 1.5 times. NaN when either is missing (a sample that failed, a window where nothing arrived is -1), so
     * a missing figure never reads as flat.
     */
    public double growth(java.util.function.ToDoubleFunction<Window> figure) {
        Window settled = windows.stream()
                .filter(w -> w.endSeconds() >= SETTLED_SECONDS)
                .findFirst()
                .orElse(windows.get(0));
        double first = figure.applyAsDouble(settled);
        double last = figure.applyAsDouble(windows.get(windows.size() - 1));
        return first > 0 && last >= 0 ? last / first : Double.NaN;
    }

    /** Whether every event committed arrived, in every window. */
    public boolean complete() {
        return windows.stream().allMatch(w -> w.arrived() == w.committed());
    }
}
