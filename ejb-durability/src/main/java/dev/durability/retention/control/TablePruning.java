package dev.durability.retention.control;

import java.time.Duration;

/**
 * What one run did to one table.
 *
 * @param statements the DELETE statements it ran, each at most one batch
 * @param longest the longest of them: the longest any pruned row's lock was held
 */
public record TablePruning(String table, Outcome outcome, long deleted, int statements, Duration longest) {

    public enum Outcome {
        /** The table's window is 0: nothing is deleted. */
        DISABLED,
        /** Another server held the table's lock: it prunes the table this time. */
        PRUNED_ELSEWHERE,
        /** Deleted what the window allows, up to the per-run cap. */
        PRUNED,
        /** A statement failed; the rows deleted before it stay deleted, the rest wait for the next run. */
        FAILED
    }

    static TablePruning without(String table, Outcome outcome) {
        return new TablePruning(table, outcome, 0, 0, Duration.ZERO);
    }
}
