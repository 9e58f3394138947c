package dev.durability.outbox.control;

import java.util.UUID;

/**
 * An outbox row this worker holds a claim on.
 *
 * @param recovered whether the row's previous claim had expired: a worker died or stalled holding it
 */
public record ClaimedEvent(UUID id, String eventType, String envelopeJson, boolean recovered) {
}
