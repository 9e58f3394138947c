package dev.durability.demo.shipments.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A shipment, one per order: {@code order_id} is unique, so however often an {@code order.placed}
 * arrives (redelivered, replayed, or with its inbox row pruned) only one shipment exists.
 */
@Entity
@Table(name = "demo_shipments")
// Insert first, on the natural key: 1 row when this created the shipment, 0 when it existed already.
// ?1 shipment id, ?2 order id, ?3 sku, ?4 quantity.
@NamedNativeQuery(name = DemoShipment.CREATE_ONCE, query = """
        INSERT INTO {schema}.demo_shipments (id, order_id, sku, quantity)
        VALUES (CAST(?1 AS uuid), CAST(?2 AS uuid), ?3, ?4)
        ON CONFLICT (order_id) DO NOTHING
        """)
public class DemoShipment {
    public static final String CREATE_ONCE = "DemoShipment.createOnce";

    @Id
    private UUID id;

    @Column(name = "order_id", nullable = false, updatable = false)
    private UUID orderId;

    @Column(nullable = false, updatable = false)
    private String sku;

    @Column(nullable = false, updatable = false)
    private int quantity;

    @Column(name = "created_at", insertable = false, updatable = false)
    private OffsetDateTime createdAt;

    protected DemoShipment() {
        // for JPA
    }
}
