package dev.durability.outbox.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ShortLivedValueTest {
    private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);
    private final AtomicInteger reads = new AtomicInteger();
    private final ShortLivedValue<Integer> value =
            new ShortLivedValue<>(reads::incrementAndGet, Duration.ofSeconds(2), clock::get);

    @Test
    void readsWithinThePeriodShareOneQuery() {
        assertThat(value.get()).isEqualTo(1);
        clock.addAndGet(Duration.ofMillis(1_999).toNanos());
        assertThat(value.get()).isEqualTo(1);
        clock.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(value.get()).as("read again once the period passed").isEqualTo(2);
    }

    @Test
    void aClockSteppedBackNeverFreezesTheValue() {
        assertThat(value.get()).isEqualTo(1);
        clock.addAndGet(-Duration.ofHours(1).toNanos());
        assertThat(value.get())
                .as("a reading from the future is stale, not fresh for an hour")
                .isEqualTo(2);
        clock.addAndGet(Duration.ofSeconds(3).toNanos());
        assertThat(value.get()).isEqualTo(3);
    }

    @Test
    void aReadSlowerThanThePeriodIsSharedWithTheCallersQueuedBehindIt() {
        ShortLivedValue<Integer> slow = new ShortLivedValue<>(
                () -> {
                    clock.addAndGet(Duration.ofSeconds(10).toNanos()); // the database takes 10 s to fail
                    return reads.incrementAndGet();
                },
                Duration.ofSeconds(2),
                clock::get);
        assertThat(slow.get()).isEqualTo(1);
        assertThat(slow.get()).as("the next gauge of the same scrape").isEqualTo(1);
    }
}
