/** {@code dead_letter_audit}: one append-only row per dead-letter occurrence, with its typed statements. */
package dev.durability.deadletter.entity;
