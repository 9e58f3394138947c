package dev.durability.outbox.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.envelope.EnvelopeJson;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.entity.OutboxEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TransactionRequiredException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.util.UUID;

/**
 * Stages events in the caller's JTA transaction: the event exists exactly when the business change
 * that caused it commits. Inject it into an EJB (or a {@code @Transactional} bean) and call
 * {@code stage} inside the business method; the drain publishes it after commit.
 *
 * <p>It never starts a transaction of its own: called without an active one it throws
 * {@link TransactionRequiredException}, because auto-committing the event would publish news of a
 * change that may still roll back.
 */
@ApplicationScoped
public class OutboxStager {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Inject
    ServiceConfig service;

    @Inject
    OutboxConfig config;

    /**
     * Stages a new event of this service.
     *
     * @param eventType   dotted lower-case, e.g. {@code order.placed}
     * @param aggregateId the entity the event is about, or {@code null}
     * @param payload     a {@link jakarta.json.JsonObject} or any object JSON-B writes as a JSON object
     * @return the envelope id (UUIDv7)
     */
    public UUID stage(String eventType, UUID aggregateId, Object payload) {
        requireTransaction();
        return stage(EventEnvelope.builder(eventType, service.serviceName())
                .aggregateId(aggregateId)
                .payload(EnvelopeJson.toJsonObject(payload))
                .build());
    }

    /** Stages a complete envelope (built with {@link EventEnvelope#builder}); returns its id. */
    public UUID stage(EventEnvelope envelope) {
        requireTransaction();
        OutboxEvent event = OutboxEvent.staged(envelope);
        if (event.envelopeBytes() > config.maxEnvelopeBytes()) {
            throw new InvalidEnvelopeException("envelope of " + envelope.eventType() + " is " + event.envelopeBytes()
                    + " bytes, over durability.outbox.max-envelope-bytes (" + config.maxEnvelopeBytes() + ")");
        }
        em.persist(event);
        // Written now, inside the caller's transaction, so a bad row fails at this call and not at commit.
        em.flush();
        return envelope.id();
    }

    private void requireTransaction() {
        int status = transactions.getTransactionStatus();
        if (status == Status.STATUS_MARKED_ROLLBACK) {
            throw new TransactionRequiredException("OutboxStager.stage was called in a transaction already marked "
                    + "for rollback: the event could never commit");
        }
        if (status != Status.STATUS_ACTIVE) {
            throw new TransactionRequiredException("OutboxStager.stage needs an active JTA transaction (status "
                    + status + "): call it from an EJB business method or a @Transactional method, so the event "
                    + "commits or rolls back with the change it announces; it never commits on its own");
        }
    }
}
