package dev.durability.bench.experiment;

/**
 * What a run may change from the environment: sizes and durations (bench/README.md lists them). The defaults are
 * the report's.
 */
public final class Settings {
    private Settings() {}

    public static int integer(String name, int fallback) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not " + value, e);
        }
    }

    /** Rows of the drains' backlog. */
    public static int rows() {
        return integer("BENCH_ROWS", 100_000);
    }

    /** The drains' batch ({@code durability.outbox.batch-size}). */
    public static int batch() {
        return integer("BENCH_BATCH", 1_000);
    }
}
