package dev.durability.inbox.entity;

/**
 * What the inbox knows of one (consumer queue, envelope) at a point of a delivery. {@code receivedMicros}
 * is the occurrence's start on the database clock, in microseconds since the epoch: the dead-letter
 * token is derived from it, so a dead letter surfaced again after a lost confirm carries the same token.
 */
public record InboxState(
        boolean processed,
        boolean deadLettered,
        int attempts,
        long receivedMicros,
        String lastError,
        Integer deadLetteredPublication) {}
