package dev.durability.bench.results;

/**
 * The drain's claim statement as it ships, timed by pgbench (rolled back) as the outbox grows.
 *
 * @param atThousandMs a claim of {@code batch} with 1,000 due rows
 * @param atMillionMs the same claim with 1,000,000 due rows
 * @param behindBackoffMs the same claim with 1,000 due rows behind 100,000 rows waiting out a backoff
 */
public record ClaimResult(
        Machine machine, int batch, double atThousandMs, double atMillionMs, double behindBackoffMs) {}
