package dev.durability.inbox.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private final RetryPolicy policy = new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(5));

    @Test
    void waitsDoubleFromTheInitialBackoffUpToTheCap() {
        assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(5));
        assertThat(policy.delayAfter(40)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theRetryScheduleIsTheSumOfTheWaitsBetweenAttempts() {
        // Five attempts, four waits: 1 + 2 + 4 + 5 s.
        assertThat(policy.retrySchedule()).isEqualTo(Duration.ofSeconds(12));
        assertThat(new RetryPolicy(1, Duration.ofSeconds(1), Duration.ofSeconds(5)).retrySchedule())
                .isZero();
    }

    @Test
    void transientFailuresAreRetriedUntilTheLastAttemptAndPermanentOnesNever() {
        assertThat(policy.afterFailure(1, false)).isEqualTo(RetryPolicy.Next.RETRY);
        assertThat(policy.afterFailure(4, false)).isEqualTo(RetryPolicy.Next.RETRY);
        assertThat(policy.afterFailure(5, false)).isEqualTo(RetryPolicy.Next.DEAD_LETTER);
        assertThat(policy.afterFailure(1, true)).isEqualTo(RetryPolicy.Next.DEAD_LETTER);
    }

    @Test
    void delayQueuesAreNamedByTheirWaitSoAChangedBackoffNeverClashesWithOldQueues() {
        assertThat(RetryPolicy.delayQueue("billing.orders", Duration.ofMillis(2000)))
                .isEqualTo("billing.orders.retry.2000ms");
    }
}
