package dev.durability.demo.shipments.boundary;

import dev.durability.demo.shipments.entity.DemoShipment;
import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.InboxConsumer;
import dev.durability.inbox.PermanentFailure;
import dev.durability.outbox.OutboxStager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Ships every placed order once. The inbox already runs this at most once per envelope; the natural key
 * keeps it once per order even past that (a second envelope for one order, an inbox row pruned before a
 * replay): the shipment is inserted first, on the order id, and {@code shipment.created} is staged only
 * when that insert created it. Both commit with the inbox row.
 */
@ApplicationScoped
@InboxConsumer(queue = "orders.shipments", eventTypes = "order.placed")
public class ShipmentsConsumer implements EventHandler {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Inject
    OutboxStager outbox;

    @Override
    public void handle(EventEnvelope event) {
        JsonObject payload = event.payload();
        UUID orderId = uuid(payload, "order_id");
        String sku = text(payload, "sku");
        int quantity = quantity(payload);
        // Derived from the order alone, so every delivery of this order computes the same shipment id.
        UUID shipmentId = UUID.nameUUIDFromBytes(("shipment:" + orderId).getBytes(StandardCharsets.UTF_8));
        int created = em.createNamedQuery(DemoShipment.CREATE_ONCE)
                .setParameter(1, shipmentId.toString())
                .setParameter(2, orderId.toString())
                .setParameter(3, sku)
                .setParameter(4, quantity)
                .executeUpdate();
        if (created == 1) {
            outbox.stage("shipment.created", shipmentId, new ShipmentCreated(shipmentId, orderId, sku, quantity));
        }
    }

    private static UUID uuid(JsonObject payload, String name) {
        try {
            return UUID.fromString(text(payload, name));
        } catch (IllegalArgumentException e) {
            throw new PermanentFailure("order.placed has no valid " + name + ": no shipment can be created", e);
        }
    }

    private static String text(JsonObject payload, String name) {
        JsonValue value = payload.get(name);
        if (!(value instanceof JsonString text) || text.getString().isBlank()) {
            throw new PermanentFailure("order.placed has no " + name + ": no shipment can be created");
        }
        return text.getString();
    }

    private static int quantity(JsonObject payload) {
        try {
            if (payload.get("quantity") instanceof JsonNumber number && number.intValueExact() >= 1) {
                return number.intValueExact();
            }
        } catch (ArithmeticException e) {
            // a fraction, or beyond int: no quantity at all rather than a wrapped one
        }
        throw new PermanentFailure("order.placed has no positive integer quantity: no shipment can be created");
    }
}
