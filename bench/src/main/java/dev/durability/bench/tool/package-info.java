/** The standard tools the benchmark runs beside its own code: pgbench, PerfTest, jcmd, gnuplot, getconf. */
package dev.durability.bench.tool;
