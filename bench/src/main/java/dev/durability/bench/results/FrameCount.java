package dev.durability.bench.results;

/** A method and the CPU samples that had it on their stack at the place the profile looks. */
public record FrameCount(String frame, long samples) {}
