/**
 * The transactional outbox's API (docs/outbox.md): inject {@link dev.durability.outbox.OutboxStager}
 * and stage an event in the transaction of the change it announces; the drain publishes it to RabbitMQ
 * after commit.
 *
 * <p>This package holds the API alone; the subpackages {@code boundary}, {@code control} and {@code
 * entity} are the library's internals and may change in any release (docs/decisions/0068-api-packages.md).
 */
package dev.durability.outbox;
