package dev.durability.inbox.entity;

/**
 * What one consumer queue did with the envelopes it received in the last 24 hours (first, or again after giving
 * up on them).
 *
 * @param processed handled, effects committed
 * @param inProgress neither processed nor given up on: retrying, or mid-flight
 * @param deadLettered given up on and dead-lettered
 */
public record InboxQueueStats(String queue, Long processed, Long inProgress, Long deadLettered) {}
