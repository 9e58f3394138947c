package dev.durability.idempotency.entity;

import java.time.Duration;

/** What claiming a key for a request found: the request may run, or it is answered from the record. */
public sealed interface ClaimOutcome {

    /**
     * The request holds the key under this generation: run it, then finalize fenced on the generation.
     *
     * @param retaken whether an earlier request with the key left no recorded answer (it failed, or its claim
     *                lapsed: its server may have died after its own effects committed)
     */
    record Claimed(long generation, boolean retaken) implements ClaimOutcome {}

    /** Another request with this key is running and its claim has not expired. */
    record InProgress(Duration claimLeft) implements ClaimOutcome {}

    /** The key was used for a request with another body. */
    record BodyMismatch() implements ClaimOutcome {}

    /** A request with this key succeeded: replay its answer. */
    record Completed(StoredResponse response) implements ClaimOutcome {}
}
