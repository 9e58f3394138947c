package dev.durability.deadletter.entity;

/**
 * The dead-letter audit at a glance.
 *
 * @param total rows kept
 * @param untriaged rows no operator has redriven or marked known-bad
 * @param lastDay rows recorded in the last 24 hours
 */
public record DeadLetterCounts(Long total, Long untriaged, Long lastDay) {}
