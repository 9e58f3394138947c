/** The dead-letter queue's listener and the transaction that records an occurrence. */
package dev.durability.deadletter.boundary;
