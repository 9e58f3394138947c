package dev.durability.outbox.control;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Retries an idempotent piece of work within a fixed budget. Each attempt runs on the executor and is
 * awaited only for what is left of the budget, so no wait inside it (a pool that has no connection to
 * spare, a lock, a slow statement) can stretch the whole beyond the budget. An attempt given up on may
 * still finish later; the work must be harmless then (the drain's stamps are fenced on their claim).
 */
public final class BoundedRetries {
    private static final Logger LOG = Logger.getLogger(BoundedRetries.class.getName());

    /** Pauses between attempts; the last one repeats while the budget lasts. */
    static final long[] PAUSES_MILLIS = {200, 1000, 3000};

    private final Executor executor;
    private final Duration budget;
    private final LongSupplier nanoClock;

    public BoundedRetries(Executor executor, Duration budget) {
        this(executor, budget, System::nanoTime);
    }

    BoundedRetries(Executor executor, Duration budget, LongSupplier nanoClock) {
        this.executor = executor;
        this.budget = budget;
        this.nanoClock = nanoClock;
    }

    /**
     * @return the first successful attempt's result
     * @throws Exception the last attempt's failure, or a {@link TimeoutException} when the budget ran out
     */
    public <T> T run(Callable<T> work) throws Exception {
        long deadline = nanoClock.getAsLong() + budget.toNanos();
        for (int attempt = 0; ; attempt++) {
            long left = deadline - nanoClock.getAsLong();
            if (left <= 0) {
                throw new TimeoutException("gave up after " + budget.toMillis() + " ms");
            }
            CompletableFuture<T> running = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return work.call();
                        } catch (Exception e) {
                            throw new AttemptFailed(e);
                        }
                    },
                    executor);
            Exception failure;
            try {
                return running.get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new TimeoutException("an attempt did not finish within the " + budget.toMillis()
                        + " ms budget; given up (the attempt may still finish, harmlessly)");
            } catch (ExecutionException e) {
                failure = e.getCause() instanceof AttemptFailed failed ? failed.cause() : asException(e.getCause());
            }
            long pause = PAUSES_MILLIS[Math.min(attempt, PAUSES_MILLIS.length - 1)];
            if (deadline - nanoClock.getAsLong() <= TimeUnit.MILLISECONDS.toNanos(pause)) {
                throw failure;
            }
            LOG.log(Level.FINE, "Attempt " + (attempt + 1) + " failed; retrying in " + pause + " ms", failure);
            Thread.sleep(pause);
        }
    }

    private static Exception asException(Throwable cause) {
        if (cause instanceof Error error) {
            throw error;
        }
        return (Exception) cause;
    }

    private static final class AttemptFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AttemptFailed(Exception cause) {
            super(cause);
        }

        Exception cause() {
            return (Exception) getCause();
        }
    }
}
