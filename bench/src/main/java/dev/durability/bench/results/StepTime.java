package dev.durability.bench.results;

/**
 * One step of the drain as the server's {@code durability_outbox_drain_step_seconds} timed it over a drain: how many
 * batches went through it and their mean time in it.
 */
public record StepTime(String step, long batches, double meanMs) {}
