package com.example.shop.ordering;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.Objects;
import java.util.UUID;

/** An order a customer placed: the shop's own table, in the shop's own schema. */
@Entity
@Table(name = "shop_order", schema = "shop")
public class ShopOrder {
    @Id
    @Column(length = 36)
    private String id;

    @Column(nullable = false)
    private String customer;

    @Column(nullable = false)
    private String sku;

    @Column(nullable = false)
    private int quantity;

    protected ShopOrder() {}

    public ShopOrder(String customer, String sku, int quantity) {
        if (sku == null || sku.isBlank() || quantity < 1) {
            throw new IllegalArgumentException("an order needs a sku and a quantity of at least 1");
        }
        this.id = UUID.randomUUID().toString();
        this.customer = Objects.requireNonNull(customer);
        this.sku = sku;
        this.quantity = quantity;
    }

    public UUID id() {
        return UUID.fromString(id);
    }

    public String customer() {
        return customer;
    }

    public String sku() {
        return sku;
    }

    public int quantity() {
        return quantity;
    }
}
