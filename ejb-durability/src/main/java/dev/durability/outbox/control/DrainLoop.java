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
 *   <li>While rows are due, the next batch is claimed and sent before the previous one's confirms are
 *       awaited and stamped, so the broker always has a batch to confirm while the database works: at
 *       most two batches are in flight, and a tick settles both before it ends
 *       (docs/decisions/0041-pipelined-drain.md).</li>
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
        if (claim.isEmpty() || endsTick(outcomes) || !claim.moreDue(batchSize)) {
            return Next.STOP;
        }
        return budgetLeft ? Next.CLAIM_AGAIN : Next.CONTINUE_IN_NEW_TICK;
    }

    /**
     * Whether to claim and send the next batch while this one's confirms are still on their way: rows
     * are due beyond this claim and the tick has budget left. What the broker then says about this batch
     * can still end the tick ({@link #endsTick}); the batch sent ahead is settled first.
     */
    public static boolean claimAhead(Claim claim, int batchSize, boolean budgetLeft) {
        return !claim.isEmpty() && claim.moreDue(batchSize) && budgetLeft;
    }

    /** Whether a settled batch ends the tick however many rows are due: the link failed it whole, or the broker blocks. */
    public static boolean endsTick(List<PublishOutcome> outcomes) {
        return linkFailedWholeBatch(outcomes) || brokerBlocked(outcomes);
    }

    private static boolean brokerBlocked(List<PublishOutcome> outcomes) {
        return outcomes.stream().anyMatch(o -> o.result() == PublishOutcome.Result.HELD);
    }

    private static boolean linkFailedWholeBatch(List<PublishOutcome> outcomes) {
        return !outcomes.isEmpty() && outcomes.stream().allMatch(o -> o.result() == PublishOutcome.Result.FAILED);
    }
}
