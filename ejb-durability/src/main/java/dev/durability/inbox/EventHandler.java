package dev.durability.inbox;

import dev.durability.envelope.EventEnvelope;

/**
 * What a consumer does with one event, inside the delivery's transaction: its JPA work and its
 * {@code OutboxStager.stage} calls commit together with the inbox row, or not at all. Throwing rolls
 * all of it back; the delivery is then retried with backoff, or dead-lettered at once for a
 * {@link PermanentFailure} or a declared permanent exception. Effects outside the database run at
 * least once: make them idempotent on a key derived from the event (docs/consumers.md).
 */
public interface EventHandler {
    void handle(EventEnvelope event) throws Exception;
}
