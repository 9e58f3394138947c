/**
 * D2, the idempotent inbox consumer (docs/consumers.md): an application declares a consumer
 * with {@link dev.durability.inbox.boundary.InboxConsumer} on a bean implementing
 * {@link dev.durability.inbox.boundary.EventHandler}; every delivery runs in one transaction with its
 * inbox row, so the handler's database effects and the events it stages happen once however often a
 * message arrives. Failures are retried through delay queues, then dead-lettered.
 */
package dev.durability.inbox;
