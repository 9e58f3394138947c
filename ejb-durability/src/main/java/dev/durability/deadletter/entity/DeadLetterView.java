package dev.durability.deadletter.entity;

import java.io.Serializable;

/**
 * A dead letter as the admin pages list it, with the latest triage verdict, if any.
 *
 * @param receivedAt when the dead-letter queue's consumer recorded it, UTC
 * @param content the envelope's JSON text, or the raw bytes with non-ASCII escaped, cut at 4,000 characters;
 *     shown as text, never as markup
 * @param verdict {@code redriven}, {@code known-bad}, or null while untriaged
 * @param traceId the W3C trace id (32 hex digits) the dead letter ends, to look up in the tracing system; null
 *     when its message named no trace (docs/operations.md, "Tracing")
 */
public record DeadLetterView(
        Long id,
        String receivedAt,
        String eventType,
        String originalQueue,
        String sourceService,
        String envelopeId,
        String reason,
        String path,
        String content,
        String verdict,
        String verdictNote,
        String verdictBy,
        String verdictAt,
        String traceId)
        implements Serializable {}
