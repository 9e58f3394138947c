/** The shipments consumer: the inbox's reference handler, idempotent on the order id as its natural key. */
package dev.durability.demo.shipments.boundary;
