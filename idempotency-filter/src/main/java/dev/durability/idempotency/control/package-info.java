/**
 * The idempotency filter's parts: parsing {@code Idempotency-Key}, the cache key and body fingerprint, the
 * buffered request and the recording response, the problem answers, configuration and metrics.
 */
package dev.durability.idempotency.control;
