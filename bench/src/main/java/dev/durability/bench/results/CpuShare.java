package dev.durability.bench.results;

/** The share of all the machine's cores, in percent, each process group used over a measurement. */
public record CpuShare(double liberty, double rabbitmq, double postgresql) {}
