package dev.durability.demo.orders.boundary;

import jakarta.json.bind.annotation.JsonbProperty;
import java.time.OffsetDateTime;
import java.util.UUID;

/** The payload of {@code order.placed}. */
public record OrderPlaced(
        @JsonbProperty("order_id") UUID orderId,
        String customer,
        String sku,
        int quantity,
        @JsonbProperty("placed_at") OffsetDateTime placedAt) {}
