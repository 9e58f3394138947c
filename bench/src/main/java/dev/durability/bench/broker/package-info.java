/**
 * What the benchmark drives in RabbitMQ: queues of its own, messages straight into a queue, a sink that empties the
 * drain's queue as PerfTest's consumer empties its own, a bare consumer (the inbox's limit), and RabbitMQ PerfTest
 * (the publishing limit).
 */
package dev.durability.bench.broker;
