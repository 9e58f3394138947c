package dev.durability.outbox.entity;

/**
 * What a replay window holds, counted before a replay starts (the preview, and the count a job starts with).
 *
 * @param matched rows created in the window, in scope
 * @param restageable the matched rows a replay re-stages: published or unroutable (the others are still pending,
 *     on their way already)
 * @param restaged rows re-staged by this call: 0 on a dry run
 * @param beyondRetention whether the window starts before the oldest published row retention keeps
 * @param retainedSince that oldest kept instant (UTC, RFC 3339), or null when nothing is pruned
 */
public record ReplayCount(
        Long matched, Long restageable, Long restaged, Boolean beyondRetention, String retainedSince) {}
