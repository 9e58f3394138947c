/**
 * The idempotency filter ({@code Idempotency-Key} on POST and PATCH, docs/idempotency.md) and the short
 * transactions that claim and finalize its records, each apart from the handler's own transaction.
 */
package dev.durability.idempotency.boundary;
