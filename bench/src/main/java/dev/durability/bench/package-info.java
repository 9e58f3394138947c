/**
 * The benchmark's entry point ({@link dev.durability.bench.Bench}): runs the experiments named on the command line,
 * keeps their results in bench/results.json and writes the report from them (bench/README.md). Internal to this
 * repository; nothing here ships.
 */
package dev.durability.bench;
