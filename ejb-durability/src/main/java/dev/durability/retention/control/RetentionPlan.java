package dev.durability.retention.control;

import java.time.Duration;

/**
 * What one pruner run may delete: a window per table (zero keeps the table's rows forever), whether
 * expired idempotency records go, and how much work one run does.
 */
public record RetentionPlan(
        Duration outbox,
        Duration inbox,
        Duration deadLetters,
        boolean idempotency,
        int batchSize,
        int maxRowsPerRun,
        int statementTimeoutSeconds) {

    public RetentionPlan {
        if (batchSize < 1 || maxRowsPerRun < batchSize || statementTimeoutSeconds < 1) {
            throw new IllegalArgumentException("a plan deletes batches of at least one row, at least one batch a run");
        }
    }
}
