package dev.durability.outbox.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BoundedRetriesTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    void aFailedAttemptIsRetriedUntilOneSucceeds() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        String result = new BoundedRetries(executor, Duration.ofSeconds(10)).run(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new SQLTransientConnectionException("database restarting");
            }
            return "stamped";
        });
        assertThat(result).isEqualTo("stamped");
        assertThat(attempts).hasValue(3);
    }

    @Test
    void retriesStopWithTheLastFailureWhenNoPauseFitsTheBudget() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> new BoundedRetries(executor, Duration.ofMillis(1500)).run(() -> {
                    attempts.incrementAndGet();
                    throw new SQLTransientConnectionException("database down");
                }))
                .isInstanceOf(SQLTransientConnectionException.class)
                .hasMessage("database down");
        // 0 ms, then after 200 ms, then after 1000 ms; the next pause (3 s) no longer fits 1.5 s.
        assertThat(attempts).hasValue(3);
    }

    @Test
    void anAttemptThatNeverReturnsIsGivenUpOnAtTheBudget() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        long started = System.nanoTime();
        assertThatThrownBy(() -> new BoundedRetries(executor, Duration.ofMillis(300)).run(() -> {
                    never.await(); // a pool with no connection to spare, a lock held elsewhere
                    return "too late";
                }))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        never.countDown();
    }
}
