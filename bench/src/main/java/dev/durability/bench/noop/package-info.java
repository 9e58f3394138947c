/**
 * The benchmark's no-op consumer, deployed in a WAR of its own inside the bench servers' copy of the EAR
 * (see the server package's NoopWar); never shipped, never run in the benchmark's own JVM.
 */
package dev.durability.bench.noop;
