package dev.durability.outbox.control;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A value read at most once per period, so that many scrapes share one status query. The age is
 * measured on a monotonic clock, and a reading from a clock that went backwards counts as stale: a
 * stepped clock can make the value older than it should be for one read, never frozen.
 */
public final class ShortLivedValue<T> {
    private final Supplier<T> read;
    private final long periodNanos;
    private final LongSupplier nanoClock;
    private T value;
    private long readAtNanos;

    public ShortLivedValue(Supplier<T> read, Duration period, LongSupplier nanoClock) {
        this.read = read;
        this.periodNanos = period.toNanos();
        this.nanoClock = nanoClock;
    }

    public synchronized T get() {
        long now = nanoClock.getAsLong();
        long age = now - readAtNanos;
        if (value == null || age < 0 || age >= periodNanos) {
            value = read.get();
            // Aged from when the read ended: a read that took longer than the period (a database that
            // does not answer) must not make every caller queued behind it read again.
            readAtNanos = nanoClock.getAsLong();
        }
        return value;
    }
}
