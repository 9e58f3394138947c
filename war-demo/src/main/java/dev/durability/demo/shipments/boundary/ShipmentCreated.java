package dev.durability.demo.shipments.boundary;

import jakarta.json.bind.annotation.JsonbProperty;
import java.util.UUID;

/** The payload of {@code shipment.created}. */
public record ShipmentCreated(
        @JsonbProperty("shipment_id") UUID shipmentId,
        @JsonbProperty("order_id") UUID orderId,
        String sku,
        int quantity) {}
