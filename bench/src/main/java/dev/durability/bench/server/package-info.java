/**
 * The Liberty servers the benchmark measures, made with the system tests' harness (LibertyServer) from the shared
 * test server's files, on a schema of their own, with the JIT and the settings a server in service has.
 */
package dev.durability.bench.server;
