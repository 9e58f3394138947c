package dev.durability.outbox.control;

import java.util.List;

/**
 * When the drain claims again and when it stops: the rules of one tick, apart from the timer that runs
 * it, so they can be read and tested on their own (docs/decisions/0014-drain-loop-rules.md).
 *
 * <ul>
 *   <li>A broker that blocks publishers (a resource alarm) gets no claim at all: the rows stay
 *       untouched, with no attempt counted, until the alarm clears.</li>
 *   <li>A batch the link failed as a whole (broker unreachable, no confirm at all, channel gone) ends
 *       the tick: the next tick, a poll interval later, tries again, so a down broker costs one batch
 *       per interval.</li>
 *   <li>Any other batch, however many of its messages were nacked or unreadable, is followed by the
 *       next claim while rows are due: a failed message fails alone.</li>
 *   <li>A tick that used its time budget while rows are still due hands over to a new tick at once.</li>
 * </ul>
 */
public final class DrainLoop {

    public enum Next {
        /** Claim the next batch in this tick. */
        CLAIM_AGAIN,
        /** The budget is spent but rows are due: end this tick and start the next at once. */
        CONTINUE_IN_NEW_TICK,
        /** Nothing due, or the broker cannot take more now: wait for the next poll. */
        STOP
    }

    private DrainLoop() {}

    /** Whether to claim at all while the broker is in this state. */
    public static boolean mayClaim(BrokerReadiness readiness) {
        return !readiness.blocked();
    }

    /** What follows a published and stamped batch. */
    public static Next after(Claim claim, List<PublishOutcome> outcomes, int batchSize, boolean budgetLeft) {
        if (claim.isEmpty() || linkFailedWholeBatch(outcomes) || brokerBlocked(outcomes) || !claim.moreDue(batchSize)) {
            return Next.STOP;
        }
        return budgetLeft ? Next.CLAIM_AGAIN : Next.CONTINUE_IN_NEW_TICK;
    }

    private static boolean brokerBlocked(List<PublishOutcome> outcomes) {
        return outcomes.stream().anyMatch(o -> o.result() == PublishOutcome.Result.HELD);
    }

    private static boolean linkFailedWholeBatch(List<PublishOutcome> outcomes) {
        return !outcomes.isEmpty() && outcomes.stream().allMatch(o -> o.result() == PublishOutcome.Result.FAILED);
    }
}
