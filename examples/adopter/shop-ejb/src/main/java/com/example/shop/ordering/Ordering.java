package com.example.shop.ordering;

import dev.durability.outbox.OutboxStager;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.Optional;
import java.util.UUID;

/** Places orders: the order row and its {@code order.placed} event commit together (README, adoption step 3). */
@Stateless
public class Ordering {
    @PersistenceContext(unitName = "shop")
    EntityManager em;

    @Inject
    OutboxStager outbox;

    public ShopOrder place(String customer, String sku, int quantity) {
        ShopOrder order = new ShopOrder(customer, sku, quantity);
        em.persist(order);
        outbox.stage(
                "order.placed",
                order.id(),
                Json.createObjectBuilder()
                        .add("order_id", order.id().toString())
                        .add("sku", order.sku())
                        .add("quantity", order.quantity())
                        .build());
        return order;
    }

    public Optional<ShopOrder> find(UUID id) {
        return Optional.ofNullable(em.find(ShopOrder.class, id.toString()));
    }
}
