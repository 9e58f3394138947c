/**
 * D1, the transactional outbox (README; decisions in docs/decisions): {@link dev.durability.outbox.boundary.OutboxStager} writes an
 * event in the caller's transaction; the drain timer claims pending rows under a lease, publishes them
 * to RabbitMQ with publisher confirms outside any transaction, and stamps each row by its own confirm.
 */
package dev.durability.outbox;
