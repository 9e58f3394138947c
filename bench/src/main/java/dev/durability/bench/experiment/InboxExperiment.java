package dev.durability.bench.experiment;

import dev.durability.bench.broker.Broker;
import dev.durability.bench.db.Database;
import dev.durability.bench.noop.NoopConsumer;
import dev.durability.bench.results.InboxResult;
import dev.durability.bench.results.Machine;
import dev.durability.bench.server.BenchServers;
import java.util.ArrayList;
import java.util.List;

/**
 * The inbox. The demo's shipments consumer (one channel, prefetch 10) takes {@code messages} order.placed events
 * queued at once, after 2,000 that warm its path up (JIT, statement caches, pools). Then the inbox's own machinery,
 * the no-op consumer, and the bare consumer (the limit: the RabbitMQ client and JDBC, one insert and commit per
 * message, the same prefetch) take turns over rounds while the server idles, so each ratio compares two rates
 * measured seconds apart, and the target holds in every round or is missed.
 */
public final class InboxExperiment {
    private static final int WARM = 2_000;
    private static final String RAW = "durability_bench_raw";
    private static final String BARE_QUEUE = "bench.bare";

    private final BenchServers servers;
    private final int messages;
    private final int rounds;

    public InboxExperiment(BenchServers servers, int messages, int rounds) {
        this.servers = servers;
        this.messages = messages;
        this.rounds = rounds;
    }

    public InboxResult run() throws Exception {
        servers.first();
        String shipments = "SELECT count(*) FROM " + BenchServers.SCHEMA + ".demo_shipments";
        long before = (long) Database.number(shipments);
        Broker.fill("orders.shipments", "order.placed", WARM);
        awaitCount(shipments, before + WARM);
        double demoRate =
                consumed(shipments, before + WARM, () -> Broker.fill("orders.shipments", "order.placed", messages));

        String noopDone = "SELECT count(*) FROM " + BenchServers.SCHEMA + ".event_inbox WHERE consumer_queue = '"
                + NoopConsumer.QUEUE + "' AND processed_at IS NOT NULL";
        Broker.fill(NoopConsumer.QUEUE, NoopConsumer.EVENT_TYPE, WARM);
        awaitCount(noopDone, WARM);
        Database.execute(
                "DROP SCHEMA IF EXISTS " + RAW + " CASCADE",
                "CREATE SCHEMA " + RAW,
                "CREATE TABLE " + RAW + ".consumed (id uuid PRIMARY KEY, body jsonb NOT NULL)");
        Broker.bind(BARE_QUEUE, BARE_QUEUE);
        List<Double> noopRates = new ArrayList<>();
        List<Double> bareRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        try {
            for (int round = 0; round < rounds; round++) {
                long start = (long) Database.number(noopDone);
                noopRates.add(consumed(
                        noopDone, start, () -> Broker.fill(NoopConsumer.QUEUE, NoopConsumer.EVENT_TYPE, messages)));
                Broker.fill(BARE_QUEUE, BARE_QUEUE, messages);
                bareRates.add(Broker.bareConsume(BARE_QUEUE, messages, RAW + ".consumed"));
                ratios.add(noopRates.get(round) / bareRates.get(round));
                Database.execute("TRUNCATE " + RAW + ".consumed");
            }
        } finally {
            Broker.delete(BARE_QUEUE);
            Database.execute("DROP SCHEMA " + RAW + " CASCADE");
        }
        return new InboxResult(Machine.now(Database.serverVersion()), messages, demoRate, noopRates, bareRates, ratios);
    }

    /** Work that queues the messages. */
    private interface Filling {
        void fill() throws Exception;
    }

    /**
     * Queues {@code messages} and returns the rate they were consumed at: from the end of the filling (the consumer
     * took some meanwhile, not counted) to the count reaching {@code from + messages}.
     */
    private double consumed(String count, long from, Filling filling) throws Exception {
        filling.fill();
        long start = System.nanoTime();
        long counted = (long) Database.number(count);
        awaitCount(count, from + messages);
        return (from + messages - counted) / ((System.nanoTime() - start) / 1e9);
    }

    private static void awaitCount(String count, long target) throws Exception {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (Database.number(count) < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not consumed in 10 minutes: " + count + " < " + target);
            }
            Thread.sleep(200);
        }
    }
}
