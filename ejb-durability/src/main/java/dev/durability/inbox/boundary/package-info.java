/**
 * The inbox's entry points: the consumer declaration users write, the listener that takes deliveries
 * from RabbitMQ, the transactions a delivery runs in, and the supervisor that keeps consumers running.
 */
package dev.durability.inbox.boundary;
