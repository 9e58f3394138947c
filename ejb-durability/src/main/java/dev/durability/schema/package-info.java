/**
 * The database schema: versioned, checksummed Flyway migrations from the {@code durability-resources}
 * jar, applied at application start-up before any other Durability bean touches a table.
 */
package dev.durability.schema;
