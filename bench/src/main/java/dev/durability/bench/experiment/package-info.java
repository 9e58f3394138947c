/**
 * One class per experiment of the benchmark, each runnable alone (bench/run NAME): it measures this machine's limit
 * for the same work in the same run, then ours, and returns what it measured as a record of
 * {@code dev.durability.bench.results}.
 */
package dev.durability.bench.experiment;
