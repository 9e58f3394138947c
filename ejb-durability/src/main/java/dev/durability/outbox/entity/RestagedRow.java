package dev.durability.outbox.entity;

/**
 * An envelope re-staged by a redrive.
 *
 * @param inserted whether the outbox no longer held the row (retention pruned it) and it was staged anew
 * @param publication the publication generation the drain sends it with
 */
public record RestagedRow(Boolean inserted, Integer publication) {}
