package dev.durability.admin.boundary;

import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.AdminActionRefused.Reason;
import dev.durability.admin.control.AdminAudit;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.RedriveOutcome;
import dev.durability.config.control.ServiceConfig;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.deadletter.entity.DeadLetterEnvelope;
import dev.durability.deadletter.entity.DeadLetterView;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.envelope.control.CloudEventJson;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.RedrivenRow;
import dev.durability.retention.control.RetentionConfig;
import dev.durability.retention.control.RetentionPlan;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.List;

/**
 * What operators decide about dead letters (docs/admin.md): a redrive re-stages the envelope through the
 * outbox, so it reaches every consumer bound to its event type again (those that processed it count a
 * duplicate); a known-bad verdict records that it should not be. Verdicts are rows of their own: the
 * {@code dead_letter_audit} row is never rewritten. Each action is one container transaction (required)
 * with its audit row; the list is a read without one. A redrive only resets an outbox row this service staged,
 * within the outbox's window counted from that staging (docs/decisions/0063-redrive-resets-own-rows-only.md).
 */
@Stateless
@RolesAllowed(AdminRole.NAME)
public class DeadLetterTriage {
    /** The list's filter on the latest verdict, in the order the page offers them. */
    public static final List<String> STATUSES = List.of("untriaged", "redriven", "known-bad", "all");

    static final int MAX_NOTE_LENGTH = 2000;
    static final int MAX_LISTED = 500;

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Resource
    SessionContext session;

    @Inject
    AdminAudit audit;

    @Inject
    ServiceConfig service;

    @Inject
    RetentionConfig retention;

    @Inject
    MessagingSpans spans;

    /** The newest dead letters, narrowed by event type, original queue and verdict (null or blank: any). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<DeadLetterView> list(String eventType, String queue, String status, int limit) {
        String verdict = status == null || status.isBlank() ? "all" : status;
        if (!STATUSES.contains(verdict)) {
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST, "status must be one of all, untriaged, redriven, known-bad");
        }
        return em.createNamedQuery(DeadLetter.LIST, DeadLetterView.class)
                .setParameter(1, blankToNull(eventType))
                .setParameter(2, blankToNull(queue))
                .setParameter(3, verdict)
                .setParameter(4, Math.max(1, Math.min(limit, MAX_LISTED)))
                .getResultList();
    }

    /**
     * Re-stages the envelope of dead letter {@code id}.
     *
     * @throws AdminActionRefused when there is no such dead letter, it holds no valid envelope, the event is
     *     another service's, this outbox holds no such event, or it was staged longer ago than the outbox keeps
     *     events (audited, nothing changed)
     */
    public RedriveOutcome redrive(long id, Channel channel) {
        String principal = session.getCallerPrincipal().getName();
        JsonObject asked = Json.createObjectBuilder().add("dead_letter_id", id).build();
        DeadLetterEnvelope stored = envelopeOf(id, principal, channel, AdminAudit.REDRIVE, asked);
        EventEnvelope envelope;
        try {
            if (stored.envelope() == null) {
                throw new InvalidEnvelopeException("it holds raw bytes, not a JSON envelope");
            }
            // Either format: the consumer dead-lettered the body as it was published (docs/envelope.md).
            envelope = CloudEventJson.readEither(null, stored.envelope(), null).envelope();
        } catch (InvalidEnvelopeException e) {
            throw refuseRedrive(id, principal, channel, asked, e.getMessage() + "; mark it known-bad instead");
        }
        if (!envelope.sourceService().equals(service.serviceName())) {
            throw refuseRedrive(
                    id,
                    principal,
                    channel,
                    asked,
                    "its event comes from " + envelope.sourceService() + ", not from this service ("
                            + service.serviceName() + "); only its producer can publish it again");
        }
        // The outbox row's own state decides, never the dead letter's claims: a forged dead letter naming an id
        // this service never staged finds no row, and what goes out again is the row's stored envelope.
        // The redrive's span, under the operator's request: the row keeps its own trace, and its next publish span
        // links here (docs/decisions/0077-trace-context-with-mp-telemetry.md).
        Span span = spans.replay("redrive");
        List<RedrivenRow> found;
        try {
            span.setAttribute(MessagingSpans.MESSAGE_ID, envelope.id().toString());
            found = em.createNamedQuery(OutboxEvent.REDRIVE, RedrivenRow.class)
                    .setParameter(1, envelope.id().toString())
                    .setParameter(2, outboxWindow().toSeconds())
                    .setParameter(
                            3,
                            TraceContext.of(span).map(TraceContext::traceparent).orElse(null))
                    .getResultList();
        } finally {
            span.end();
        }
        if (found.isEmpty()) {
            throw refuseRedrive(
                    id,
                    principal,
                    channel,
                    asked,
                    "this service's outbox holds no event " + envelope.id()
                            + ": it was never staged here, or retention deleted it after "
                            + RetentionPlan.readable(outboxWindow())
                            + " (durability.retention.outbox-window), so consumers that"
                            + " processed it may no longer remember it");
        }
        RedrivenRow row = found.get(0);
        if (row.beyondRetention()) {
            throw refuseRedrive(
                    id,
                    principal,
                    channel,
                    asked,
                    "its event was staged at " + row.stagedAt() + ", longer ago than the "
                            + RetentionPlan.readable(outboxWindow())
                            + " the outbox keeps events (durability.retention.outbox-window), so consumers that"
                            + " processed it may no longer remember it");
        }
        RedriveOutcome outcome =
                new RedriveOutcome(id, envelope.id(), envelope.eventType(), row.reset(), row.publication());
        triage(id, "redriven", outcome.restaged() ? null : "already pending in the outbox", principal);
        audit.done(principal, channel, AdminAudit.REDRIVE, outcome.toJson());
        return outcome;
    }

    /**
     * Records that dead letter {@code id} is known bad and must not be redriven.
     *
     * @throws AdminActionRefused when there is no such dead letter or the note is too long (audited)
     */
    public void markKnownBad(long id, String note, Channel channel) {
        String principal = session.getCallerPrincipal().getName();
        String kept = blankToNull(note);
        JsonObject asked = Json.createObjectBuilder()
                .add("dead_letter_id", id)
                .add("note", kept == null ? "" : AdminAudit.storable(kept.substring(0, Math.min(kept.length(), 300))))
                .build();
        if (kept != null && (kept.length() > MAX_NOTE_LENGTH || kept.indexOf('\u0000') >= 0)) {
            var refusal = new AdminActionRefused(
                    Reason.INVALID_REQUEST,
                    "the note is longer than " + MAX_NOTE_LENGTH + " characters or holds a NUL character");
            audit.refused(principal, channel, AdminAudit.KNOWN_BAD, asked, refusal.getMessage());
            throw refusal;
        }
        envelopeOf(id, principal, channel, AdminAudit.KNOWN_BAD, asked);
        triage(id, "known-bad", kept, principal);
        audit.done(principal, channel, AdminAudit.KNOWN_BAD, asked);
    }

    private AdminActionRefused refuseRedrive(long id, String principal, Channel channel, JsonObject asked, String why) {
        var refusal =
                new AdminActionRefused(Reason.NOT_REDRIVABLE, "dead letter " + id + " cannot be redriven: " + why);
        audit.refused(principal, channel, AdminAudit.REDRIVE, asked, refusal.getMessage());
        return refusal;
    }

    private Duration outboxWindow() {
        return retention.plan().outbox();
    }

    /** The dead letter's envelope text (null for raw bytes), locked against retention until commit. */
    private DeadLetterEnvelope envelopeOf(long id, String principal, Channel channel, String action, JsonObject asked) {
        List<DeadLetterEnvelope> found = em.createNamedQuery(DeadLetter.ENVELOPE_OF, DeadLetterEnvelope.class)
                .setParameter(1, id)
                .getResultList();
        if (found.isEmpty()) {
            var refusal = new AdminActionRefused(
                    Reason.NOT_FOUND, "there is no dead letter " + id + " (retention may have deleted it)");
            audit.refused(principal, channel, action, asked, refusal.getMessage());
            throw refusal;
        }
        return found.get(0);
    }

    private void triage(long id, String verdict, String note, String principal) {
        em.createNamedQuery(DeadLetter.TRIAGE)
                .setParameter(1, id)
                .setParameter(2, verdict)
                .setParameter(3, note)
                .setParameter(4, principal)
                .executeUpdate();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
