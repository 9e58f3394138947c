package com.example.shop.invoicing;

import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.InboxConsumer;
import dev.durability.inbox.PermanentFailure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/**
 * Invoices every placed order (README, adoption step 6): the inbox runs this at most once per event, in the
 * delivery's transaction, so however often {@code order.placed} arrives there is one invoice.
 */
@ApplicationScoped
@InboxConsumer(queue = "shop.invoicing", eventTypes = "order.placed")
public class InvoiceOrders implements EventHandler {
    @PersistenceContext(unitName = "shop")
    EntityManager em;

    @Override
    public void handle(EventEnvelope event) {
        JsonObject payload = event.payload();
        if (!payload.containsKey("order_id") || !payload.containsKey("quantity")) {
            throw new PermanentFailure("order.placed without order_id or quantity: nothing to invoice");
        }
        em.persist(new Invoice(payload.getString("order_id"), payload.getInt("quantity")));
    }

    /** The invoices of one order: one, once its event was consumed. */
    public List<Invoice> of(String orderId) {
        return em.createQuery("SELECT i FROM Invoice i WHERE i.orderId = :order", Invoice.class)
                .setParameter("order", orderId)
                .getResultList();
    }
}
