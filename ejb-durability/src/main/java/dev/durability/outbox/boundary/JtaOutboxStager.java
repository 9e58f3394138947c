package dev.durability.outbox.boundary;

import dev.durability.broker.control.BrokerConfig;
import dev.durability.config.control.ServiceConfig;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.outbox.OutboxStager;
import dev.durability.outbox.control.DrainWakeUp;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.tracing.control.MessagingSpans;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.TransactionRequiredException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The {@link OutboxStager} applications inject: writes each event's outbox row through the library's
 * persistence unit, in the caller's JTA transaction, checked against {@code
 * durability.outbox.max-envelope-bytes}. When the transaction commits, this server's drain is woken in
 * the process: the rows carry {@code notify_drains = false}, so staging never takes PostgreSQL's notify
 * lock (docs/decisions/0082-in-process-wake-up.md).
 */
@ApplicationScoped
public class JtaOutboxStager implements OutboxStager {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Inject
    ServiceConfig service;

    @Inject
    OutboxConfig config;

    @Inject
    DrainWakeUp wakeUp;

    @Inject
    BrokerConfig broker;

    @Inject
    MessagingSpans spans;

    @Override
    public UUID stage(String eventType, UUID aggregateId, Object payload) {
        requireTransaction();
        return stage(envelope(eventType, aggregateId, payload));
    }

    @Override
    public UUID stage(EventEnvelope envelope) {
        return stage(List.of(envelope)).get(0);
    }

    @Override
    public List<UUID> stage(Collection<EventEnvelope> envelopes) {
        requireTransaction();
        List<OutboxEvent> rows = new ArrayList<>(envelopes.size());
        for (EventEnvelope envelope : envelopes) {
            OutboxEvent row = OutboxEvent.staged(envelope);
            if (row.envelopeBytes() > config.maxEnvelopeBytes()) {
                throw new InvalidEnvelopeException("envelope of " + envelope.eventType() + " is " + row.envelopeBytes()
                        + " bytes, over durability.outbox.max-envelope-bytes (" + config.maxEnvelopeBytes() + ")");
            }
            rows.add(row);
        }
        for (OutboxEvent row : rows) {
            // A create span per event when the caller's work is traced, its context kept with the row for the publish;
            // made once every envelope passed, so no span tells of an event that was refused.
            spans.create(broker.eventsExchange(), row.eventType(), row.id()).ifPresent(row::tracedBy);
        }
        rows.forEach(em::persist);
        try {
            // Written now, inside the caller's transaction, so a bad row fails at this call and not at commit.
            em.flush();
        } catch (PersistenceException e) {
            throw StagingRefused.explain(e);
        }
        // The rows are written; nothing reads them back in this transaction, so they need not stay managed.
        rows.forEach(em::detach);
        if (config.wakeOnStaging()) {
            wakeDrainOnCommit();
        }
        return rows.stream().map(OutboxEvent::id).toList();
    }

    @Override
    public EventEnvelope envelope(String eventType, UUID aggregateId, Object payload) {
        return EventEnvelope.builder(eventType, service.serviceName())
                .aggregateId(aggregateId)
                .payload(EnvelopeJson.toJsonObject(payload))
                .build();
    }

    /** Once per transaction: after it commits, the drain finds its rows at once; a rollback wakes nobody. */
    private void wakeDrainOnCommit() {
        if (transactions.getResource(DrainWakeUp.class) != null) {
            return;
        }
        transactions.putResource(DrainWakeUp.class, Boolean.TRUE);
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // nothing to do before the commit
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    wakeUp.stagingCommitted();
                }
            }
        });
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
