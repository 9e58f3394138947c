package dev.durability.admin.pages;

import java.util.Locale;

/**
 * An age as an operator reads it at a glance: the two largest units ({@code 12 d 7 h}, {@code 3 h 12 min},
 * {@code 4 min 5 s}), or seconds with one decimal below a minute. A backlog's oldest row shown as
 * {@code 1,062,342.2 s} says nothing until someone divides it.
 */
public record ElapsedTime(double seconds) {
    private static final long MINUTE = 60;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;

    public ElapsedTime {
        if (Double.isNaN(seconds) || seconds < 0) {
            throw new IllegalArgumentException("an elapsed time is zero or more seconds, not " + seconds);
        }
    }

    /** The age in its two largest units, truncated (a row 59.96 s old is "59.9 s", never "60.0 s"). */
    public String text() {
        if (seconds < MINUTE) {
            return String.format(Locale.ROOT, "%.1f s", Math.floor(seconds * 10) / 10);
        }
        long whole = (long) seconds;
        if (whole < HOUR) {
            return two(whole / MINUTE, "min", whole % MINUTE, "s");
        }
        if (whole < DAY) {
            return two(whole / HOUR, "h", whole % HOUR / MINUTE, "min");
        }
        return two(whole / DAY, "d", whole % DAY / HOUR, "h");
    }

    /** The exact figure, for a tooltip. */
    public String exact() {
        return String.format(Locale.ROOT, "%.1f s", seconds);
    }

    private static String two(long large, String largeUnit, long small, String smallUnit) {
        return small == 0 ? large + " " + largeUnit : large + " " + largeUnit + " " + small + " " + smallUnit;
    }
}
