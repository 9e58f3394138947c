package dev.durability.retention.control;

import java.time.Duration;

/**
 * What one pruner run may delete: a window per table (zero keeps the table's rows forever; the outbox has one
 * for published rows and one for rows the broker returned as unroutable), whether
 * expired idempotency records go, and how much work one run does.
 */
public record RetentionPlan(
        Duration outbox,
        Duration unroutable,
        Duration inbox,
        Duration deadLetters,
        boolean idempotency,
        int batchSize,
        int maxRowsPerRun,
        int statementTimeoutSeconds) {

    /** A window as an operator reads it in a refusal: whole days as days ("30 days"), anything else as ISO-8601. */
    public static String readable(Duration window) {
        if (!window.isZero() && window.toSeconds() % 86_400 == 0 && window.getNano() == 0) {
            long days = window.toDays();
            return days + (days == 1 ? " day" : " days");
        }
        return window.toString();
    }

    public RetentionPlan {
        if (batchSize < 1 || maxRowsPerRun < batchSize || statementTimeoutSeconds < 1) {
            throw new IllegalArgumentException("a plan deletes batches of at least one row, at least one batch a run");
        }
    }
}
