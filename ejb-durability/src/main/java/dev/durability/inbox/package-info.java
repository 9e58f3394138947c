/**
 * The idempotent inbox consumer's API (docs/consumers.md): declare a consumer with {@link
 * dev.durability.inbox.InboxConsumer} on a bean implementing {@link dev.durability.inbox.EventHandler};
 * every delivery runs in one transaction with its inbox row, so the handler's database effects and the
 * events it stages happen once however often a message arrives. A handler throws {@link
 * dev.durability.inbox.PermanentFailure} for an event no retry can process; other failures are retried
 * through delay queues, then dead-lettered.
 *
 * <p>This package holds the API alone; the subpackages {@code boundary}, {@code control} and {@code
 * entity} are the library's internals and may change in any release (docs/decisions/0068-api-packages.md).
 */
package dev.durability.inbox;
