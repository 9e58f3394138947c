package dev.durability.demo.orders.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A placed order. Valid by construction; the client chooses its id, so a retried create collides. It belongs to
 * the caller who placed it ({@code placedBy}); {@code customer} is only the name it is for, as the client wrote it.
 */
@Entity
@Table(name = "demo_orders")
public class DemoOrder {
    public static final int MAX_QUANTITY = 1000;

    @Id
    private UUID id;

    @Column(nullable = false)
    private String customer;

    @Column(nullable = false)
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @Column(name = "placed_at", nullable = false)
    private OffsetDateTime placedAt;

    @Column(name = "placed_by", updatable = false)
    private String placedBy;

    protected DemoOrder() {
        // for JPA
    }

    public DemoOrder(UUID id, String customer, String sku, int quantity, OffsetDateTime placedAt, String placedBy) {
        this.id = require(id, "id");
        this.placedBy = require(placedBy, "placedBy");
        this.customer = text(customer, "customer", 200);
        this.sku = text(sku, "sku", 100);
        if (quantity < 1 || quantity > MAX_QUANTITY) {
            throw new InvalidOrderException("quantity", "must be between 1 and " + MAX_QUANTITY + ", was " + quantity);
        }
        this.quantity = quantity;
        this.placedAt = require(placedAt, "placedAt");
    }

    private static <T> T require(T value, String name) {
        if (value == null) {
            throw new InvalidOrderException(name, "is required");
        }
        return value;
    }

    private static String text(String value, String name, int max) {
        require(value, name);
        if (value.isBlank() || value.length() > max) {
            throw new InvalidOrderException(name, "must be 1.." + max + " characters");
        }
        // PostgreSQL refuses NUL in text and its driver would store a lone surrogate as '?': refuse both here,
        // as the client's mistake, rather than fail at the insert or keep something other than what was sent.
        if (value.codePoints()
                .anyMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE)) {
            throw new InvalidOrderException(name, "must not contain control characters or unpaired surrogates");
        }
        return value;
    }

    public UUID id() {
        return id;
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

    public OffsetDateTime placedAt() {
        return placedAt;
    }

    /** Whether {@code caller} placed this order: only they may read it back. */
    public boolean placedBy(String caller) {
        return placedBy != null && placedBy.equals(caller);
    }
}
