/**
 * The reference deployment's demo domain: orders placed through {@code POST /api/orders}, each staging
 * {@code order.placed} through the outbox exactly as an adopting team's code would, and a shipments
 * consumer of {@code order.placed} that creates one shipment per order through the inbox and stages
 * {@code shipment.created}. Nothing in the library depends on it.
 */
package dev.durability.demo;
