/** What applications call ({@code OutboxStager}) and the timer that drains the outbox on every server. */
package dev.durability.outbox.boundary;
