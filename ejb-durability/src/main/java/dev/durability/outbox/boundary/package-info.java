/**
 * Internal: the outbox's stager behind {@code dev.durability.outbox.OutboxStager} and the timer that
 * drains the outbox on every server.
 */
package dev.durability.outbox.boundary;
