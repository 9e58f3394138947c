package dev.durability.demo.orders.boundary;

import dev.durability.demo.orders.entity.DemoOrder;
import dev.durability.outbox.boundary.OutboxStager;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * Places orders. The order row and its {@code order.placed} event commit together in this method's
 * container transaction, or neither exists: this is the whole of what an adopting team writes.
 */
@Stateless
public class OrderService {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Inject
    OutboxStager outbox;

    /** Returns the envelope id of the staged event. A duplicate order id fails at commit and rolls back both. */
    public UUID place(UUID id, String customer, String sku, int quantity) {
        DemoOrder order = new DemoOrder(id, customer, sku, quantity,
                OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS));
        em.persist(order);
        return outbox.stage("order.placed", order.id(),
                new OrderPlaced(order.id(), order.customer(), order.sku(), order.quantity(), order.placedAt()));
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public DemoOrder find(UUID id) {
        return em.find(DemoOrder.class, id);
    }
}
