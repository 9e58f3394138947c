/**
 * What the benchmark drives in PostgreSQL: statements through JDBC, pgbench for the database's own limits and for
 * transactions timed where their cost lies, and the library's claim statement as it ships.
 */
package dev.durability.bench.db;
