/** {@code event_inbox}: one row per (consumer queue, envelope), with its typed statements. */
package dev.durability.inbox.entity;
