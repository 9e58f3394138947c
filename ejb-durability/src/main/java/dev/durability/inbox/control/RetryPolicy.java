package dev.durability.inbox.control;

import java.time.Duration;

/**
 * When a failed delivery is tried again and when it is dead-lettered. A retry waits in a delay queue of
 * its own level, never in a consumer's prefetch slot: attempt {@code n} that failed waits
 * {@code initial * 2^(n-1)}, capped at {@code max}, then returns to the consumer's queue.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be 1 or more, was " + maxAttempts);
        }
    }

    /** What follows a failure, given how many attempts (this one included) the inbox has recorded. */
    public Next afterFailure(int attemptsRecorded, boolean permanent) {
        if (permanent || attemptsRecorded >= maxAttempts) {
            return Next.DEAD_LETTER;
        }
        return Next.RETRY;
    }

    /** The wait after the {@code attempt}-th failure, {@code attempt} from 1. */
    public Duration delayAfter(int attempt) {
        long millis = initialBackoff.toMillis();
        for (int i = 1; i < attempt && millis < maxBackoff.toMillis(); i++) {
            millis *= 2;
        }
        return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
    }

    /** The waits of every retry together: how long after its first failure an envelope is at the latest dead-lettered. */
    public Duration retrySchedule() {
        Duration total = Duration.ZERO;
        for (int attempt = 1; attempt < maxAttempts; attempt++) {
            total = total.plus(delayAfter(attempt));
        }
        return total;
    }

    /**
     * The delay queue for waits of this length. Named by the delay, so a changed backoff declares new
     * queues instead of clashing with the arguments of existing ones.
     */
    public static String delayQueue(String queue, Duration delay) {
        return queue + ".retry." + delay.toMillis() + "ms";
    }

    public enum Next {
        RETRY,
        DEAD_LETTER
    }
}
