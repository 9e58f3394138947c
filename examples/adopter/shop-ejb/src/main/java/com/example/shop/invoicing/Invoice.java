package com.example.shop.invoicing;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

/** The invoice of one order: what the shop's consumer makes of each {@code order.placed}. */
@Entity
@Table(name = "invoice", schema = "shop")
public class Invoice {
    @Id
    @Column(length = 36)
    private String id;

    @Column(name = "order_id", nullable = false, length = 36)
    private String orderId;

    @Column(nullable = false)
    private int quantity;

    protected Invoice() {}

    public Invoice(String orderId, int quantity) {
        this.id = UUID.randomUUID().toString();
        this.orderId = orderId;
        this.quantity = quantity;
    }

    public String id() {
        return id;
    }

    public String orderId() {
        return orderId;
    }

    public int quantity() {
        return quantity;
    }
}
