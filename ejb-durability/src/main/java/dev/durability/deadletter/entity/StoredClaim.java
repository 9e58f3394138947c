package dev.durability.deadletter.entity;

/** The audit row already holding a token, and whether it states the same facts as a new claim of it. */
public record StoredClaim(long id, boolean identical) {}
