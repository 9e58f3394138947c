/**
 * The event envelope every Durability message travels in: its fields, their validation,
 * time-ordered ids, and its JSON form.
 */
package dev.durability.envelope;
