/**
 * The load the benchmark offers: envelopes as the library makes them, and events staged in SQL one per transaction,
 * at a fixed rate or as fast as the connections commit.
 */
package dev.durability.bench.load;
