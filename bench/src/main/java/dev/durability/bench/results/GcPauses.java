package dev.durability.bench.results;

/** A server's garbage-collection pauses over a recording: every event committed during one waits it out. */
public record GcPauses(int count, double longestMs, double totalMs) {}
