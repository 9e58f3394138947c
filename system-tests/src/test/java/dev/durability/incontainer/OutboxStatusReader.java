package dev.durability.incontainer;

import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.OutboxStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Runs the status gauges' named query as OutboxMetrics does, with a cap of the test's choosing. */
@ApplicationScoped
public class OutboxStatusReader {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    public OutboxStatus status(int graceSeconds, int cap) {
        return em.createNamedQuery(OutboxEvent.PENDING_STATUS, OutboxStatus.class)
                .setParameter(1, graceSeconds)
                .setParameter(2, cap)
                .getSingleResult();
    }
}
