/**
 * What each experiment measured, as bench/results.json holds it: one record per experiment, each with the machine
 * and the time it ran on, so an experiment rerun alone replaces only its own figures.
 */
package dev.durability.bench.results;
