package dev.durability.outbox.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.outbox.entity.ClaimedRow;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DrainLoopTest {
    private static final int BATCH = 100;

    /** A claim of {@code size} rows out of {@code candidates} due rows it looked at. */
    private static Claim claim(int size, long candidates) {
        List<ClaimedRow> rows = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            rows.add(new ClaimedRow(UUID.randomUUID(), "order.placed", "{}", 0, false, candidates, null, null, null));
        }
        return new Claim(UUID.randomUUID(), rows);
    }

    private static List<PublishOutcome> outcomes(Claim claim, PublishOutcome.Result... pattern) {
        List<PublishOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < claim.size(); i++) {
            outcomes.add(new PublishOutcome(claim.rows().get(i).id(), pattern[i % pattern.length], "detail"));
        }
        return outcomes;
    }

    @Test
    void aFullBatchOfDeliveriesIsFollowedByTheNextClaim() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.after(full, outcomes(full, PublishOutcome.Result.CONFIRMED), BATCH, true))
                .isEqualTo(DrainLoop.Next.CLAIM_AGAIN);
    }

    @Test
    void nackedAndUnreadableMessagesFailAloneAndTheDrainGoesOn() {
        Claim full = claim(BATCH, BATCH);
        List<PublishOutcome> mixed = outcomes(
                full,
                PublishOutcome.Result.CONFIRMED,
                PublishOutcome.Result.REJECTED,
                PublishOutcome.Result.UNROUTABLE);
        assertThat(DrainLoop.after(full, mixed, BATCH, true)).isEqualTo(DrainLoop.Next.CLAIM_AGAIN);
        assertThat(DrainLoop.after(full, outcomes(full, PublishOutcome.Result.REJECTED), BATCH, true))
                .as("a batch the broker nacked whole still answered: the next claim may go through")
                .isEqualTo(DrainLoop.Next.CLAIM_AGAIN);
    }

    @Test
    void aConfirmTimeoutForPartOfABatchDoesNotEndTheTick() {
        Claim full = claim(BATCH, BATCH);
        List<PublishOutcome> partial = outcomes(full, PublishOutcome.Result.CONFIRMED, PublishOutcome.Result.FAILED);
        assertThat(DrainLoop.after(full, partial, BATCH, true)).isEqualTo(DrainLoop.Next.CLAIM_AGAIN);
    }

    @Test
    void aBatchTheLinkFailedWholeEndsTheTick() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.after(full, outcomes(full, PublishOutcome.Result.FAILED), BATCH, true))
                .isEqualTo(DrainLoop.Next.STOP);
    }

    @Test
    void aClaimThatTookEveryDueRowEndsTheTick() {
        Claim partial = claim(40, 40);
        assertThat(DrainLoop.after(partial, outcomes(partial, PublishOutcome.Result.CONFIRMED), BATCH, true))
                .isEqualTo(DrainLoop.Next.STOP);
        Claim empty = claim(0, 0);
        assertThat(DrainLoop.after(empty, List.of(), BATCH, true)).isEqualTo(DrainLoop.Next.STOP);
    }

    @Test
    void aClaimCutShortByTheByteBoundCountsAsFull() {
        Claim byteBound = claim(12, 100);
        assertThat(byteBound.moreDue(BATCH)).isTrue();
        assertThat(DrainLoop.after(byteBound, outcomes(byteBound, PublishOutcome.Result.CONFIRMED), BATCH, true))
                .isEqualTo(DrainLoop.Next.CLAIM_AGAIN);
    }

    @Test
    void aTickOutOfBudgetWithRowsStillDueHandsOverToANewTick() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.after(full, outcomes(full, PublishOutcome.Result.CONFIRMED), BATCH, false))
                .isEqualTo(DrainLoop.Next.CONTINUE_IN_NEW_TICK);
        Claim last = claim(3, 3);
        assertThat(DrainLoop.after(last, outcomes(last, PublishOutcome.Result.CONFIRMED), BATCH, false))
                .isEqualTo(DrainLoop.Next.STOP);
    }

    @Test
    void aBlockedBrokerGetsNoClaimButAnUnreachableOneGetsOneBatchToRecordTheFailure() {
        assertThat(DrainLoop.mayClaim(BrokerReadiness.blocked("memory alarm"))).isFalse();
        assertThat(DrainLoop.mayClaim(BrokerReadiness.unreachable("connection refused")))
                .isTrue();
        assertThat(DrainLoop.mayClaim(BrokerReadiness.ready())).isTrue();
    }

    @Test
    void rowsHandedBackBecauseTheBrokerBlocksEndTheTick() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.after(
                        full, outcomes(full, PublishOutcome.Result.CONFIRMED, PublishOutcome.Result.HELD), BATCH, true))
                .isEqualTo(DrainLoop.Next.STOP);
        assertThat(PublishOutcome.Result.HELD.failure())
                .as("no attempt counted")
                .isFalse();
    }

    @Test
    void theNextBatchIsClaimedAheadOnlyWhileRowsAreDueAndBudgetIsLeft() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.claimAhead(full, BATCH, true)).isTrue();
        assertThat(DrainLoop.claimAhead(full, BATCH, false))
                .as("out of budget: the tick settles what it sent and hands over")
                .isFalse();
        assertThat(DrainLoop.claimAhead(claim(40, 40), BATCH, true))
                .as("the claim took every due row")
                .isFalse();
        assertThat(DrainLoop.claimAhead(claim(0, 0), BATCH, true)).isFalse();
        assertThat(DrainLoop.claimAhead(claim(12, 100), BATCH, true))
                .as("cut short by the byte bound")
                .isTrue();
    }

    @Test
    void aSettledBatchEndsTheTickOnlyWhenTheLinkFailedItWholeOrTheBrokerBlocks() {
        Claim full = claim(BATCH, BATCH);
        assertThat(DrainLoop.endsTick(outcomes(full, PublishOutcome.Result.FAILED)))
                .isTrue();
        assertThat(DrainLoop.endsTick(outcomes(full, PublishOutcome.Result.CONFIRMED, PublishOutcome.Result.HELD)))
                .isTrue();
        assertThat(DrainLoop.endsTick(outcomes(full, PublishOutcome.Result.CONFIRMED, PublishOutcome.Result.FAILED)))
                .isFalse();
        assertThat(DrainLoop.endsTick(outcomes(
                        full,
                        PublishOutcome.Result.CONFIRMED,
                        PublishOutcome.Result.REJECTED,
                        PublishOutcome.Result.UNROUTABLE)))
                .isFalse();
    }
}
