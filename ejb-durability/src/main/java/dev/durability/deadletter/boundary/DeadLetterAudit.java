package dev.durability.deadletter.boundary;

import dev.durability.deadletter.control.DeadLetterConfig;
import dev.durability.deadletter.control.DeadLetterMetrics;
import dev.durability.deadletter.control.IncomingDeadLetter;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.deadletter.entity.RecordedRow;
import dev.durability.deadletter.entity.StoredClaim;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.outbox.OutboxStager;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.logging.Logger;

/**
 * Records one dead letter in {@code dead_letter_audit}, in one container transaction (required) with
 * the threshold event it may stage: the row and the event commit together or not at all, and the
 * listener acks only after this committed.
 */
@Stateless
public class DeadLetterAudit {
    private static final Logger LOG = Logger.getLogger(DeadLetterAudit.class.getName());
    static final String THRESHOLD_EVENT = "dlq.threshold_exceeded";

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    OutboxStager outbox;

    @Inject
    DeadLetterConfig config;

    @Inject
    DeadLetterMetrics metrics;

    /**
     * Records the occurrence once: a second claim of its token is a benign duplicate or a quarantined divergence.
     *
     * @param traceId the trace the dead letter ends (docs/operations.md, "Tracing"), or null when it names none
     */
    public DeadLetterMetrics.Outcome record(IncomingDeadLetter letter, String traceId) {
        lockEventType(letter);
        List<RecordedRow> inserted = insert(letter, letter.occurrenceToken(), false, null, traceId);
        if (!inserted.isEmpty()) {
            crossThreshold(letter, inserted.get(0));
            return DeadLetterMetrics.Outcome.RECORDED;
        }
        StoredClaim stored = em.createNamedQuery(DeadLetter.CLAIM_OF_TOKEN, StoredClaim.class)
                .setParameter(1, letter.occurrenceToken())
                .setParameter(
                        2,
                        letter.envelopeId() == null ? null : letter.envelopeId().toString())
                .setParameter(3, letter.originalQueue())
                .setParameter(4, letter.eventType())
                .setParameter(5, letter.content().json())
                .setParameter(6, letter.content().raw())
                .getSingleResult();
        if (stored.identical()) {
            return DeadLetterMetrics.Outcome.DUPLICATE;
        }
        LOG.severe(() -> "Dead letter claims occurrence token " + letter.occurrenceToken() + " of audit row "
                + stored.id() + " with different facts (envelope " + letter.envelopeId() + ", queue "
                + letter.originalQueue() + ", event type " + letter.eventType() + "): recorded tokenless and "
                + "quarantined. A producer or a tool is re-using tokens, or rows were edited by hand.");
        IncomingDeadLetter divergent = new IncomingDeadLetter(
                letter.path(),
                letter.envelopeId(),
                letter.originalQueue(),
                letter.sourceService(),
                letter.eventType(),
                "quarantined: divergent claim of occurrence token " + letter.occurrenceToken() + " (audit row "
                        + stored.id() + "); " + letter.reason(),
                letter.content(),
                letter.xDeathJson(),
                null,
                letter.occurredAt(),
                letter.evidenceTruncated());
        // Evidence of a divergent copy of an occurrence already counted, not a new failure: it neither counts
        // towards the threshold nor raises it (docs/decisions/0057-divergent-dead-letters-not-counted.md).
        insert(divergent, null, true, stored.id(), traceId);
        return DeadLetterMetrics.Outcome.QUARANTINED;
    }

    /** Records what the database refused as it was: raw bytes, no token, quarantined. */
    public DeadLetterMetrics.Outcome quarantine(IncomingDeadLetter letter, String why, String traceId) {
        IncomingDeadLetter raw = letter.quarantined(why);
        lockEventType(raw);
        crossThreshold(raw, insert(raw, null, true, null, traceId).get(0));
        return DeadLetterMetrics.Outcome.QUARANTINED;
    }

    private void lockEventType(IncomingDeadLetter letter) {
        if (letter.eventType() != null) {
            em.createNamedQuery(DeadLetter.LOCK_EVENT_TYPE)
                    .setParameter(1, letter.eventType())
                    .getSingleResult();
        }
    }

    private List<RecordedRow> insert(
            IncomingDeadLetter letter, String token, boolean quarantined, Long divergentOf, String traceId) {
        return em.createNamedQuery(DeadLetter.RECORD, RecordedRow.class)
                .setParameter(
                        1,
                        letter.envelopeId() == null ? null : letter.envelopeId().toString())
                .setParameter(2, letter.originalQueue())
                .setParameter(3, letter.sourceService())
                .setParameter(4, letter.eventType())
                .setParameter(5, letter.reason())
                .setParameter(6, letter.path().column())
                .setParameter(7, letter.content().json())
                .setParameter(8, letter.content().raw())
                .setParameter(9, letter.xDeathJson())
                .setParameter(10, token)
                .setParameter(
                        11,
                        letter.occurredAt() == null
                                ? null
                                : OffsetDateTime.ofInstant(letter.occurredAt(), ZoneOffset.UTC))
                .setParameter(12, quarantined)
                .setParameter(13, config.windowSeconds())
                .setParameter(14, divergentOf)
                .setParameter(15, letter.evidenceTruncated())
                .setParameter(16, traceId)
                .getResultList();
    }

    /**
     * Stages one threshold event when this row moved its event type's count inside the window from the
     * threshold to one more; a sustained breach stages nothing more until the count drops and crosses again.
     */
    private void crossThreshold(IncomingDeadLetter letter, RecordedRow row) {
        if (letter.eventType() == null || !row.inWindow()) {
            return;
        }
        long count = em.createNamedQuery(DeadLetter.COUNT_IN_WINDOW, Long.class)
                .setParameter(1, letter.eventType())
                .setParameter(2, config.windowSeconds())
                .getSingleResult();
        if (count == config.threshold() + 1L) {
            outbox.stage(
                    THRESHOLD_EVENT,
                    null,
                    EnvelopeJson.PROVIDER
                            .createObjectBuilder()
                            .add("event_type", letter.eventType())
                            .add("threshold", config.threshold())
                            .add("window_seconds", config.windowSeconds())
                            .add("dead_letters_in_window", count)
                            .add("dead_letter_id", row.id())
                            .add("original_queue", letter.originalQueue() == null ? "" : letter.originalQueue())
                            .build());
            metrics.thresholdExceeded();
            LOG.warning(() -> "Dead letters of " + letter.eventType() + " crossed the threshold: " + count + " in the "
                    + "last " + config.windowSeconds() + " s; staged " + THRESHOLD_EVENT);
        }
    }
}
