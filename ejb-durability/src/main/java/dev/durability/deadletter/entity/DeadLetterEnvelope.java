package dev.durability.deadletter.entity;

/**
 * What a redrive needs of a dead letter.
 *
 * @param envelope the envelope's JSON text, or null when the dead letter holds raw bytes only
 */
public record DeadLetterEnvelope(String envelope) {}
