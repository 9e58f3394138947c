/**
 * The idempotency filter's records: the claim outcomes a keyed request meets and the responses kept for
 * replays. The rows live in {@code idempotency_responses} (migration V5), shared by every instance on the
 * database.
 */
package dev.durability.idempotency.entity;
