/**
 * The report, generated from bench/results.json alone: a headline table of every figure with its limit, ratio,
 * target and whether it is met, the plots, then each experiment's details. The analysis is written by hand apart,
 * in docs/performance-notes.md.
 */
package dev.durability.bench.report;
