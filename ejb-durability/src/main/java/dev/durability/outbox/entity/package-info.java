/** The outbox table as JPA sees it, with the drain's fenced statements as named queries. */
package dev.durability.outbox.entity;
