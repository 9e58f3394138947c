/**
 * Internal: the listener that takes deliveries from RabbitMQ, the transactions a delivery runs in, and
 * the supervisor that keeps consumers running. Applications use {@code dev.durability.inbox} only.
 */
package dev.durability.inbox.boundary;
