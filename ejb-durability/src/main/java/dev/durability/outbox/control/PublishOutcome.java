package dev.durability.outbox.control;

import java.util.Objects;
import java.util.UUID;

/** What the broker said about one published message. */
public record PublishOutcome(UUID id, Result result, String detail) {

    public enum Result {
        /** Acked and routed to at least one queue. */
        CONFIRMED,
        /** Acked, but returned as unroutable: no queue is bound for its event type. */
        UNROUTABLE,
        /**
         * This message alone failed while the broker kept answering: nacked (a full queue with
         * {@code x-overflow=reject-publish}), or its stored envelope cannot be read. Retried with backoff;
         * the drain goes on with the next claim.
         */
        REJECTED,
        /**
         * The link failed: never sent, no confirm in time, or the channel closed. Retried with backoff;
         * when a whole batch fails this way the drain waits for the next tick.
         */
        FAILED,
        /**
         * Never sent because the broker blocks publishers (a resource alarm): handed back untried, with no
         * attempt counted, and the drain waits for the alarm to end.
         */
        HELD;

        /** Whether the row is retried with backoff. */
        public boolean failure() {
            return this == REJECTED || this == FAILED;
        }
    }

    public static PublishOutcome confirmed(UUID id) {
        return new PublishOutcome(id, Result.CONFIRMED, null);
    }

    public static PublishOutcome unroutable(UUID id, String detail) {
        return new PublishOutcome(id, Result.UNROUTABLE, Objects.requireNonNullElse(detail, "unroutable"));
    }

    public static PublishOutcome rejected(UUID id, String detail) {
        return new PublishOutcome(id, Result.REJECTED, Objects.requireNonNullElse(detail, "rejected"));
    }

    public static PublishOutcome held(UUID id, String detail) {
        return new PublishOutcome(id, Result.HELD, Objects.requireNonNullElse(detail, "broker blocked"));
    }

    public static PublishOutcome failed(UUID id, String detail) {
        return new PublishOutcome(id, Result.FAILED, Objects.requireNonNullElse(detail, "publish failed"));
    }
}
