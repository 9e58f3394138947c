package dev.durability.deadletter.entity;

/** The audit row a dead letter just became, and whether it falls inside the threshold window. */
public record RecordedRow(long id, boolean inWindow) {}
