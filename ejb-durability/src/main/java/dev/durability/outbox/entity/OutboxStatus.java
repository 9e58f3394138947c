package dev.durability.outbox.entity;

/**
 * The outbox as the status gauges show it. Every count stops at the cap the status statement was
 * given, so a scrape never scans more than that many rows, however large a backlog grows.
 */
public record OutboxStatus(
        Long depth, Double oldestPendingSeconds, Long beyondGrace, Long withErrors, Long unroutable) {}
