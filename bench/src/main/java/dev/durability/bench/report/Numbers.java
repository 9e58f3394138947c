package dev.durability.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.stream.Collectors;

/** Figures as a reader takes them in at a glance: thousands grouped, as many decimals as the magnitude needs. */
final class Numbers {
    private Numbers() {}

    /** A count or a rate: 27,716. */
    static String whole(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    /** Milliseconds: 7.49, 56.6, 256. */
    static String ms(double value) {
        double size = Math.abs(value);
        String format = size >= 100 ? "%,.0f" : size >= 10 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, format, value) + " ms";
    }

    /** Milliseconds with a sign: +1.15 ms. */
    static String signedMs(double value) {
        return (value >= 0 ? "+" : "") + ms(value);
    }

    /** Milliseconds to three decimals, for transactions of about one: 1.337 ms. */
    static String fineMs(double value) {
        return String.format(Locale.ROOT, "%.3f ms", value);
    }

    static String ratio(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** A ratio to a run of our own: 1.15×. */
    static String times(double value) {
        return String.format(Locale.ROOT, "%.2f×", value);
    }

    /**
     * A figure beside its target: a third decimal where the usual format would read as the target itself, so a miss
     * by less than the rounding does not read as met (0.696 against 0.70).
     */
    static String ratio(double value, double target) {
        return beside(value, target, Numbers::ratio, "%.3f");
    }

    static String times(double value, double target) {
        return beside(value, target, Numbers::times, "%.3f×");
    }

    static String ms(double value, double target) {
        return beside(value, target, Numbers::ms, "%.3f ms");
    }

    private static String beside(double value, double target, DoubleFunction<String> usual, String precise) {
        return usual.apply(value).equals(usual.apply(target)) && value != target
                ? String.format(Locale.ROOT, precise, value)
                : usual.apply(value);
    }

    static String percent(double value) {
        return String.format(Locale.ROOT, "%.0f %%", value);
    }

    static String seconds(double value) {
        return String.format(Locale.ROOT, value >= 10 ? "%.1f s" : "%.2f s", value);
    }

    static String mib(double value) {
        return String.format(Locale.ROOT, "%,.0f MiB", value);
    }

    /** Several figures of the same kind, one per round: 1,282 / 1,665 / 1,652. */
    static String rounds(List<Double> values, DoubleFunction<String> format) {
        return values.stream().map(v -> format.apply(v)).collect(Collectors.joining(" / "));
    }
}
