package dev.durability.retention.control;

import java.time.Duration;
import java.util.List;

/**
 * What one run did to one table.
 *
 * @param statements the DELETE statements it ran, each at most one batch
 * @param longest the longest of them: the longest any pruned row's lock was held
 * @param stoppedAtCap the run deleted its per-run cap: rows past the window may be left for another run
 * @param overdueSeconds how far past its window the oldest row left that the window lets go was, measured when
 *     the run ended (0 when none is left; NaN when it could not be measured)
 */
public record TablePruning(
        String table,
        Outcome outcome,
        long deleted,
        int statements,
        Duration longest,
        boolean stoppedAtCap,
        double overdueSeconds) {

    public enum Outcome {
        /** The table's window is 0: nothing is deleted. */
        DISABLED,
        /** Another server held the table's lock: it prunes the table this time. */
        PRUNED_ELSEWHERE,
        /** Deleted what the window allows, up to the per-run cap. */
        PRUNED,
        /** Only measured how far behind the table is, nothing deleted: a server's report before its first run. */
        MEASURED,
        /** A statement failed; the rows deleted before it stay deleted, the rest wait for the next run. */
        FAILED
    }

    static TablePruning without(String table, Outcome outcome, double overdueSeconds) {
        return new TablePruning(table, outcome, 0, 0, Duration.ZERO, false, overdueSeconds);
    }

    /**
     * Whether a run left work behind that should not wait for the next hour: a table that stopped at its cap holds a
     * backlog, and is pruned again after a short pause until it has caught up
     * (docs/decisions/0086-retention-keeps-up.md).
     */
    public static boolean backlogLeft(List<TablePruning> run) {
        return run.stream().anyMatch(TablePruning::stoppedAtCap);
    }
}
