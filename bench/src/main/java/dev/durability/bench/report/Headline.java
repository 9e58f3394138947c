package dev.durability.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * The report's first table: each figure, ours, the limit (or the run of ours it is compared with) measured in the
 * same run, the ratio, the target, and whether it is met.
 */
final class Headline {
    private final List<String> rows = new ArrayList<>();

    /** A figure with a target; {@code met} decides the last column. */
    Headline row(String figure, String ours, String limit, String ratio, String target, boolean met) {
        rows.add(line(figure, ours, limit, ratio, target, met ? "met" : "**missed**"));
        return this;
    }

    /** A figure reported for scale, with no target. */
    Headline row(String figure, String ours, String limit, String ratio) {
        rows.add(line(figure, ours, limit, ratio, "", ""));
        return this;
    }

    /** An experiment that has not run: its figures are missing, not met. */
    Headline missing(String figure, String experiment) {
        rows.add(line(figure, "not measured (`bench/run " + experiment + "`)", "", "", "", ""));
        return this;
    }

    String markdown() {
        return "| figure | ours | limit, same run | ratio | target | |\n|---|---|---|---|---|---|\n"
                + String.join("\n", rows) + "\n";
    }

    private static String line(String... cells) {
        return "| " + String.join(" | ", cells) + " |";
    }
}
