/** The Flyway configuration of the library's migrations, shared by start-up and the in-container tests. */
package dev.durability.schema.control;
