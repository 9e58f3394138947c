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
        /** Nacked, not confirmed in time, or never sent because the channel failed. */
        FAILED
    }

    public static PublishOutcome confirmed(UUID id) {
        return new PublishOutcome(id, Result.CONFIRMED, null);
    }

    public static PublishOutcome unroutable(UUID id, String detail) {
        return new PublishOutcome(id, Result.UNROUTABLE, Objects.requireNonNullElse(detail, "unroutable"));
    }

    public static PublishOutcome failed(UUID id, String detail) {
        return new PublishOutcome(id, Result.FAILED, Objects.requireNonNullElse(detail, "publish failed"));
    }
}
