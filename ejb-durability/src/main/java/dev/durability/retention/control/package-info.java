/**
 * Retention: the windows per table and the batched, lock-guarded deletes that keep the library's tables
 * bounded (docs/decisions/0033-retention.md).
 */
package dev.durability.retention.control;
