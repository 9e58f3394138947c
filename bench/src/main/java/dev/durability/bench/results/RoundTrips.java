package dev.durability.bench.results;

/**
 * Database round trips of one kind in a profile: how many answers were read, and the mean time of each, from the
 * request's write to the answer's read.
 */
public record RoundTrips(long count, double meanMs) {}
