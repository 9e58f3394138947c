/**
 * The demo orders API: the REST resource, which reads request bodies itself so that every malformed request
 * is the client's 400; the order service that stages {@code order.placed}; the mappers and filter that answer
 * every other error as problem details without internals; and the demo schema.
 */
package dev.durability.demo.orders.boundary;
