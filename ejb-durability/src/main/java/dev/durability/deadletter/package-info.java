/**
 * D3, dead letters (docs/dead-letters.md): every consumer queue dead-letters into one exchange; the
 * service's dead-letter queue consumer writes each dead letter once per occurrence into the append-only
 * {@code dead_letter_audit}, raw bytes included when it is not JSON, and stages one
 * {@code dlq.threshold_exceeded} event when an event type's dead letters cross the threshold.
 */
package dev.durability.deadletter;
