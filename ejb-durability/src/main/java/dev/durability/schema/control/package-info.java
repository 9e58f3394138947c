/** The Flyway configuration of the library's migrations, shared by start-up and the in-container tests, and the
 * privileges its runtime role needs (docs/grants/postgresql.sql). */
package dev.durability.schema.control;
