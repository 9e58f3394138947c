package dev.durability.deadletter.entity;

/**
 * What a redrive needs of a dead letter.
 *
 * @param envelope the envelope's JSON text, or null when the dead letter holds raw bytes only
 * @param beyondInboxRetention whether it happened longer ago than the inbox keeps its dedup records, so
 *     consumers that processed the event may no longer know it
 */
public record DeadLetterEnvelope(String envelope, Boolean beyondInboxRetention) {}
