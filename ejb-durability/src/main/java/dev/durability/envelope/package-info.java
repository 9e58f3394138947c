/**
 * The event envelope every Durability message travels in, as applications see it: its fields, their
 * validation, and the exception that names a broken rule (docs/envelope.md).
 *
 * <p>This package holds the API alone; {@code dev.durability.envelope.control} (the envelope's JSON
 * form) is internal (docs/decisions/0068-api-packages.md).
 */
package dev.durability.envelope;
