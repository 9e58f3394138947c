package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The soak: a steady, moderate load of keyed orders through the demo API for {@code SOAK_MINUTES}, sampling
 * every 30 s what would grow if something leaked: the server's heap after a full collection, its threads, the
 * outbox rows waiting, the partial indexes the drain's claims walk, dead tuples, the shipments queue. After a
 * warm-up those must stay flat; the tables that keep every order (retention counts in days) must grow by the
 * same bytes per order throughout, not faster. It ends with the fault suite's accounting. Run by
 * {@code system-tests/soak [minutes]} (docs/soak.md), not by the build: it takes half an hour.
 */
@EnabledIfEnvironmentVariable(named = "SOAK_MINUTES", matches = "[1-9][0-9]*")
class SoakIT {
    private static final Duration LENGTH = Duration.ofMinutes(Long.parseLong(Coordinates.env("SOAK_MINUTES", "30")));
    private static final Duration EVERY = Duration.ofSeconds(30);
    /** Two clients each pausing 100 ms between orders: some 15 orders a second, with their two events each. */
    private static final int CLIENTS = 2;

    private static final Duration BETWEEN_ORDERS = Duration.ofMillis(100);
    static final Path REPORT = Path.of("target", "reliability", "soak.md");

    /** One sample; sizes in bytes. */
    record Sample(
            long seconds,
            long orders,
            long heapAfterGc,
            long threads,
            long pending,
            long claimIndexes,
            long outboxDeadTuples,
            long shipmentsWaiting,
            long outboxBytes,
            long inboxBytes,
            long idempotencyBytes) {

        String markdownRow() {
            return String.format(
                    "| %d | %d | %.1f | %d | %d | %d | %d | %d | %.1f | %.1f | %.1f |",
                    seconds,
                    orders,
                    heapAfterGc / 1048576.0,
                    threads,
                    pending,
                    claimIndexes / 1024,
                    outboxDeadTuples,
                    shipmentsWaiting,
                    outboxBytes / 1048576.0,
                    inboxBytes / 1048576.0,
                    idempotencyBytes / 1048576.0);
        }
    }

    @Test
    void aSteadyLoadForHalfAnHourLeavesHeapBacklogAndClaimIndexesFlat() throws Exception {
        // The comparison below needs samples after the warm-up fifth in both its first and its last third.
        assertThat(LENGTH)
                .as("SOAK_MINUTES: at least 5, so the comparison has early and late samples")
                .isGreaterThanOrEqualTo(Duration.ofMinutes(5));
        String tag = "soak-" + Long.toHexString(System.nanoTime());
        List<Sample> samples = new ArrayList<>();
        Pipeline.awaitQuiet();
        long start = System.nanoTime();
        FaultAccounting accounting;
        try (EventQueue placed = new EventQueue("order.placed");
                OrderLoad load = new OrderLoad(tag, List.of(Coordinates.mainServer()), CLIENTS, BETWEEN_ORDERS)) {
            while (System.nanoTime() - start < LENGTH.toNanos()) {
                Thread.sleep(EVERY.toMillis());
                samples.add(sample(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), tag));
            }
            load.stop(Duration.ofSeconds(60));
            accounting = FaultAccounting.settle(
                    "soak, " + LENGTH.toMinutes() + " min, " + CLIENTS + " clients " + BETWEEN_ORDERS.toMillis()
                            + " ms apart",
                    load,
                    placed,
                    0,
                    () -> 0,
                    Duration.ofSeconds(180));
        }
        writeReport(samples, accounting);

        assertThat(accounting.lost()).as("lost: %s", accounting).isZero();
        assertThat(accounting.ordersTwice()).as("second orders: %s", accounting).isZero();
        assertThat(accounting.shipments())
                .as("one shipment per order: %s", accounting)
                .isEqualTo(accounting.orders());

        // The first fifth is warm-up (JIT, pools, caches filling); then the first and last thirds of the rest.
        List<Sample> settled = samples.subList(samples.size() / 5, samples.size());
        List<Sample> early = settled.subList(0, settled.size() / 3);
        List<Sample> late = settled.subList(settled.size() - settled.size() / 3, settled.size());
        assertThat(max(late, Sample::heapAfterGc))
                .as("heap after a full collection, late vs early: not growing")
                .isLessThanOrEqualTo(max(early, Sample::heapAfterGc) * 5 / 4 + 16 * 1048576L);
        assertThat(max(late, Sample::threads))
                .as("threads, late vs early: not growing")
                .isLessThanOrEqualTo(max(early, Sample::threads) + 10);
        assertThat(max(settled, Sample::pending))
                .as("outbox rows waiting at any sample: the drain keeps up")
                .isLessThan(1_000);
        assertThat(max(late, Sample::claimIndexes))
                .as("the partial indexes the claims walk (pending rows only), late vs early: not growing")
                .isLessThanOrEqualTo(max(early, Sample::claimIndexes) * 2 + 1048576L);
        assertThat(bytesPerOrder(late.get(0), late.get(late.size() - 1)))
                .as("outbox bytes per order, late vs early: no bloat piling up on top of the rows kept")
                .isLessThanOrEqualTo(bytesPerOrder(early.get(0), early.get(early.size() - 1)) * 3 / 2 + 512);
    }

    private static long max(List<Sample> samples, java.util.function.ToLongFunction<Sample> value) {
        return samples.stream().mapToLong(value).max().orElseThrow();
    }

    private static long bytesPerOrder(Sample from, Sample to) {
        return (to.outboxBytes() - from.outboxBytes()) / Math.max(1, to.orders() - from.orders());
    }

    private static Sample sample(long seconds, String tag) throws Exception {
        String schema = Coordinates.mainSchema();
        try (Connection c = OutboxTable.connect()) {
            return new Sample(
                    seconds,
                    number(c, "SELECT count(*) FROM " + schema + ".demo_orders WHERE customer LIKE ? || '-%'", tag),
                    heapAfterFullCollection(),
                    Math.round(Http.metric(Coordinates.mainServer(), "thread_count")),
                    number(
                            c,
                            "SELECT count(*) FROM " + schema
                                    + ".event_outbox WHERE published_at IS NULL AND unroutable_at IS NULL"),
                    number(
                            c,
                            // The partitioned outbox's indexes and rows are its partitions' (docs/decisions/0093).
                            "SELECT coalesce(sum(pg_relation_size(t.relid)), 0) FROM unnest(CAST(? AS regclass[])) i,"
                                    + " pg_partition_tree(i) t",
                            "{" + schema + ".event_outbox_fresh_idx," + schema + ".event_outbox_retry_idx," + schema
                                    + ".event_outbox_pending_idx}"),
                    number(
                            c,
                            "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables"
                                    + " WHERE relid IN (SELECT relid FROM pg_partition_tree(CAST(? AS regclass)))",
                            schema + ".event_outbox"),
                    Pipeline.shipmentsWaiting(),
                    number(
                            c,
                            "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(CAST(? AS regclass))",
                            schema + ".event_outbox"),
                    number(
                            c,
                            "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(CAST(? AS regclass))",
                            schema + ".event_inbox"),
                    number(c, "SELECT pg_total_relation_size(CAST(? AS regclass))", schema + ".idempotency_responses"));
        }
    }

    /** The main server's heap in use right after a full collection (jcmd GC.run, then its base metric). */
    private static long heapAfterFullCollection() throws Exception {
        Path main = Path.of(Coordinates.mainServerDir());
        Path pidFile = main.getParent().resolve(".pid").resolve(main.getFileName() + ".pid");
        String pid = Files.readString(pidFile).trim();
        Process gc = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), pid, "GC.run")
                .redirectErrorStream(true)
                .start();
        gc.getInputStream().readAllBytes();
        assertThat(gc.waitFor(60, TimeUnit.SECONDS)).as("jcmd GC.run finished").isTrue();
        return Math.round(Http.metric(Coordinates.mainServer(), "memory_usedHeap_bytes"));
    }

    private static long number(Connection c, String sql, String... parameters) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setString(i + 1, parameters[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void writeReport(List<Sample> samples, FaultAccounting accounting) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append("| s | orders | heap after GC (MiB) | threads | outbox rows waiting | claim indexes (KiB)"
                + " | outbox dead tuples | shipments queued | event_outbox (MiB) | event_inbox (MiB)"
                + " | idempotency_responses (MiB) |\n");
        text.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        samples.forEach(s -> text.append(s.markdownRow()).append('\n'));
        text.append("\nAccounting at the end (columns as in docs/reliability.md):\n\n")
                .append(accounting.markdownRow())
                .append('\n');
        Files.createDirectories(REPORT.getParent());
        Files.writeString(REPORT, text);
    }
}
