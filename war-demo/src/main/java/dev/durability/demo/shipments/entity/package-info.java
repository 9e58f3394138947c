/** The demo shipment entity, one per order. */
package dev.durability.demo.shipments.entity;
