package dev.durability.outbox.entity;

/**
 * The outbox row a redrive found for its envelope.
 *
 * @param pending whether the row still waits to be published (left as it is: the event is on its way)
 * @param beyondRetention whether it was staged longer ago than the outbox keeps published rows (left as it is)
 * @param stagedAt when this outbox staged the event, as PostgreSQL prints it
 * @param publication the publication generation the drain now sends it with, or null when not reset
 */
public record RedrivenRow(Boolean pending, Boolean beyondRetention, String stagedAt, Integer publication) {

    public boolean reset() {
        return publication != null;
    }
}
