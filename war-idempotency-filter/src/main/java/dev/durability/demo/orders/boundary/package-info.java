/** The demo orders API: the REST resource, the order service that stages {@code order.placed}, and the demo schema. */
package dev.durability.demo.orders.boundary;
