package dev.durability.bench.experiment;

import dev.durability.bench.db.Database;
import dev.durability.bench.db.Pgbench;
import dev.durability.bench.http.OrderClients;
import dev.durability.bench.results.Machine;
import dev.durability.bench.results.StagingResult;
import dev.durability.bench.server.BenchServers;
import dev.durability.it.LibertyServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What staging costs the transaction it joins (docs/decisions/0082-in-process-wake-up.md).
 *
 * <ul>
 *   <li>Through the API: {@code POST /api/orders} without a key from 1, 4, 16 and 64 closed-loop clients on the
 *       shipped server (its stager wakes the server's drain after each commit) and on a server of the same schema
 *       whose staging wakes none (its drain finds the rows on its 1 s poll), taking turns within each round.
 *   <li>Then, the servers stopped, at the database through pgbench, where staging's cost lies:
 *       <ul>
 *         <li>cost: the demo's order transaction alone and with its order.placed row inserted by SQL (notifying),
 *             then with one part taken away at a time (the notification: the outbox's insert trigger disabled; the
 *             write-ahead log: the outbox's partitions unlogged), the WAL bytes of each transaction and each
 *             statement's own latency, one connection;
 *         <li>concurrency: the same transaction at 1, 4, 16 and 64 connections alone, with its event and no wake-up
 *             at all (the trigger disabled), with its event as OutboxStager writes it (no notification), and
 *             inserted by SQL (the trigger's pg_notify, whose commit-time lock makes commits take turns);
 *         <li>business: a transaction of realistic size, the order with three lines and a stock update (five
 *             statements, in tables of the benchmark's own), without and with the event as OutboxStager writes
 *             it, one connection: the target of at most 10 % applies here.
 *       </ul>
 * </ul>
 *
 * Every variant takes its turn within each round; each figure is the median of the rounds, each ratio the median of
 * the rounds' ratios. The tables are emptied before every pgbench run, so no run inherits another's rows.
 */
public final class StagingExperiment {
    private static final int[] CONNECTIONS = {1, 4, 16, 64};
    private static final String S = BenchServers.SCHEMA;

    /** The four ways of the concurrency measurement. */
    private enum Variant {
        ALONE,
        UNWOKEN,
        STAGED,
        NOTIFYING
    }

    private final BenchServers servers;
    private final int seconds;
    private final int rounds;

    public StagingExperiment(BenchServers servers, int seconds, int rounds) {
        this.servers = servers;
        this.seconds = seconds;
        this.rounds = rounds;
    }

    public StagingResult run() throws Exception {
        long[] apiErrors = {0};
        List<StagingResult.Api> api = throughApi(apiErrors);
        servers.close();
        StagingResult.Cost cost = cost();
        List<StagingResult.Concurrency> concurrency = concurrency();
        StagingResult.Business business = business();
        empty();
        return new StagingResult(
                Machine.now(Database.serverVersion()), seconds, rounds, cost, business, concurrency, api, apiErrors[0]);
    }

    private List<StagingResult.Api> throughApi(long[] errors) throws Exception {
        LibertyServer woken = servers.first();
        LibertyServer unwoken = servers.unwoken();
        OrderClients wokenClients = new OrderClients(woken.uri());
        OrderClients unwokenClients = new OrderClients(unwoken.uri());
        // The same warm-up for both, right before the rows, so that neither the JIT nor Liberty's executor (which
        // grows its pool under load) favours the server that served the earlier experiments.
        unwokenClients.throughput(List.of(OrderClients.Mode.NONE), 64, 30);
        wokenClients.throughput(List.of(OrderClients.Mode.NONE), 64, 30);
        Map<Integer, List<double[]>> runs = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (int clients : CONNECTIONS) {
                double[] pair = new double[2];
                // The first of each pair alternates from round to round.
                for (int turn = 0; turn < 2; turn++) {
                    boolean wokenNow = (round % 2 == 0) == (turn == 0);
                    Quiet.await(S);
                    OrderClients.Outcome outcome = (wokenNow ? wokenClients : unwokenClients)
                            .throughput(List.of(OrderClients.Mode.NONE), clients, seconds);
                    double rate = outcome.figures().get(0).perSecond();
                    if (rate == 0) {
                        throw new IllegalStateException((wokenNow ? "the shipped" : "the unwoken")
                                + " server answered no order in a run of " + clients + " clients: " + outcome.errors());
                    }
                    pair[wokenNow ? 0 : 1] = rate;
                    errors[0] += outcome.errorCount();
                }
                runs.computeIfAbsent(clients, c -> new ArrayList<>()).add(pair);
            }
        }
        servers.stop(unwoken);
        List<StagingResult.Api> api = new ArrayList<>();
        runs.forEach((clients, pairs) -> api.add(new StagingResult.Api(
                clients,
                median(pairs.stream().map(p -> p[0]).toList()),
                median(pairs.stream().map(p -> p[1]).toList()),
                median(pairs.stream().map(p -> p[0] / p[1]).toList()))));
        return api;
    }

    private StagingResult.Cost cost() throws Exception {
        Path without = Pgbench.script("without", orderBegun(1_000_000, 1) + "COMMIT;\n");
        Path with = Pgbench.script("with", orderBegun(1_000_000, 1) + outboxInsert(null) + "COMMIT;\n");
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            run(runs, "without", without);
            run(runs, "with", with);
            trigger("DISABLE");
            run(runs, "noNotify", with);
            trigger("ENABLE");
            empty();
            logged("UNLOGGED");
            run(runs, "noWal", with);
            logged("LOGGED");
            empty();
        }
        double noise = runs.values().stream()
                .mapToDouble(r -> r.stream().mapToDouble(x -> x[0]).max().orElse(0)
                        - r.stream().mapToDouble(x -> x[0]).min().orElse(0))
                .max()
                .orElse(0);
        return new StagingResult.Cost(
                median(runs, "without", 0),
                median(runs, "with", 0),
                median(runs, "noNotify", 0),
                median(runs, "noWal", 0),
                median(runs, "without", 1),
                median(runs, "with", 1),
                median(runs, "with", 2),
                median(runs, "without", 3),
                median(runs, "with", 3),
                median(runs, "without", 4),
                noise);
    }

    /**
     * One pgbench run, one connection, appending its mean latency, WAL bytes a transaction, and the statements' own
     * latencies (the outbox insert, the commit, the order's insert) to the variant's runs.
     */
    private void run(Map<String, List<double[]>> runs, String variant, Path script) throws Exception {
        String before = Database.text("SELECT pg_current_wal_lsn()");
        Pgbench.Run run = Pgbench.timed(script, 1, seconds, true);
        double walBytes =
                Database.number("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + before + "')") / run.transactions();
        runs.computeIfAbsent(variant, v -> new ArrayList<>()).add(new double[] {
            run.latencyMs(),
            walBytes,
            run.statement("^INSERT INTO .*event_outbox"),
            run.statement("^COMMIT"),
            run.statement("^INSERT INTO .*demo_orders")
        });
    }

    private List<StagingResult.Concurrency> concurrency() throws Exception {
        Map<Variant, Path> scripts = new EnumMap<>(Variant.class);
        for (Variant variant : Variant.values()) {
            String event = switch (variant) {
                case ALONE -> "";
                // Unwoken: the row as the stager writes it, measured with the trigger disabled.
                case UNWOKEN, STAGED -> outboxInsert(false);
                case NOTIFYING -> outboxInsert(true);
            };
            scripts.put(
                    variant,
                    Pgbench.script(
                            variant.name().toLowerCase(Locale.ROOT), orderBegun(1_000_000, 1) + event + "COMMIT;\n"));
        }
        List<StagingResult.Concurrency> rows = new ArrayList<>();
        for (int connections : CONNECTIONS) {
            Map<Variant, List<Double>> tps = new EnumMap<>(Variant.class);
            List<Double> staged = new ArrayList<>();
            List<Double> notifying = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                Map<Variant, Double> thisRound = new EnumMap<>(Variant.class);
                for (Variant variant : Variant.values()) {
                    empty();
                    trigger(variant == Variant.UNWOKEN ? "DISABLE" : "ENABLE");
                    double measured = Pgbench.timed(scripts.get(variant), connections, seconds, false)
                            .tps();
                    thisRound.put(variant, measured);
                    tps.computeIfAbsent(variant, v -> new ArrayList<>()).add(measured);
                }
                staged.add(thisRound.get(Variant.STAGED) / thisRound.get(Variant.UNWOKEN));
                notifying.add(thisRound.get(Variant.NOTIFYING) / thisRound.get(Variant.UNWOKEN));
            }
            rows.add(new StagingResult.Concurrency(
                    connections,
                    median(tps.get(Variant.ALONE)),
                    median(tps.get(Variant.UNWOKEN)),
                    median(tps.get(Variant.STAGED)),
                    median(tps.get(Variant.NOTIFYING)),
                    median(staged),
                    median(notifying)));
        }
        trigger("ENABLE");
        return rows;
    }

    private StagingResult.Business business() throws Exception {
        Database.execute(
                "CREATE TABLE " + S + ".bench_order_lines (order_id uuid NOT NULL REFERENCES " + S
                        + ".demo_orders (id), line int NOT NULL, sku text NOT NULL, quantity int NOT NULL,"
                        + " PRIMARY KEY (order_id, line))",
                "CREATE TABLE " + S + ".bench_stock (sku text PRIMARY KEY, on_hand bigint NOT NULL)",
                "INSERT INTO " + S + ".bench_stock SELECT 'book-' || n, 1000000000 FROM generate_series(1, 1000) n");
        try {
            Path without = Pgbench.script("business-without", businessTransaction(false));
            Path with = Pgbench.script("business-with", businessTransaction(true));
            List<Double> withoutMs = new ArrayList<>();
            List<Double> withMs = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                empty();
                double a = 1_000 / Pgbench.timed(without, 1, seconds, false).tps();
                empty();
                double b = 1_000 / Pgbench.timed(with, 1, seconds, false).tps();
                withoutMs.add(a);
                withMs.add(b);
                ratios.add(b / a);
            }
            return new StagingResult.Business(median(withoutMs), median(withMs), median(ratios));
        } finally {
            Database.execute("DROP TABLE " + S + ".bench_order_lines, " + S + ".bench_stock");
        }
    }

    /** Five statements of business work, then (with the event) the row as OutboxStager writes it. */
    private static String businessTransaction(boolean withEvent) {
        StringBuilder sql = new StringBuilder(orderBegun(1_000, 3));
        for (int line = 1; line <= 3; line++) {
            sql.append("INSERT INTO " + S + ".bench_order_lines VALUES (current_setting('bench.order_id')::uuid, ")
                    .append(line)
                    .append(", 'book-' || :n, 1);\n");
        }
        sql.append("UPDATE " + S + ".bench_stock SET on_hand = on_hand - 3 WHERE sku = 'book-' || :n;\n");
        if (withEvent) {
            sql.append(outboxInsert(false));
        }
        return sql.append("COMMIT;\n").toString();
    }

    /**
     * A transaction begun with the demo's order of {@code quantity} of one of {@code skus} books. pgbench has no uuid
     * variables: the order's id is picked first, the same statement in every variant.
     */
    private static String orderBegun(int skus, int quantity) {
        return "\\set n random(1, " + skus + ")\n"
                + "BEGIN;\n"
                + "SELECT set_config('bench.order_id', gen_random_uuid()::text, true);\n"
                + "INSERT INTO " + S + ".demo_orders (id, customer, sku, quantity)"
                + " VALUES (current_setting('bench.order_id')::uuid, 'bench', 'book-' || :n, " + quantity + ");\n";
    }

    /**
     * The order.placed row of the order picked first in the transaction: notifying as an SQL insert is, or not as
     * OutboxStager writes it; {@code null} leaves the column to its default, as an SQL insert that names no flag.
     */
    private static String outboxInsert(Boolean notifying) {
        return "INSERT INTO " + S + ".event_outbox (id, aggregate_id, event_type, envelope"
                + (notifying == null ? "" : ", notify_drains") + ")"
                + " SELECT e, o, 'order.placed', jsonb_build_object('id', e, 'event_type', 'order.placed',"
                + " 'source_service', 'bench', 'aggregate_id', o, 'occurred_at', '2026-01-01T00:00:00.000Z',"
                + " 'schema_version', 1, 'correlation_id', e, 'causation_id', null, 'payload',"
                + " jsonb_build_object('order_id', o, 'customer', 'bench', 'sku', 'book-' || :n, 'quantity', 1))"
                + (notifying == null ? "" : ", " + notifying)
                + " FROM (SELECT " + S + ".durability_new_uuid7() AS e, current_setting('bench.order_id')::uuid AS o)"
                + " ids;\n";
    }

    /** Empties the demo's orders (and what refers to them) and the outbox. */
    private static void empty() throws Exception {
        Database.execute("TRUNCATE " + S + ".demo_orders, " + S + ".event_outbox CASCADE");
    }

    private static void trigger(String state) throws Exception {
        Database.execute("ALTER TABLE " + S + ".event_outbox " + state + " TRIGGER event_outbox_staged");
    }

    /** The outbox's partitions LOGGED or UNLOGGED (a partitioned table has no storage of its own to log). */
    private static void logged(String state) throws Exception {
        try (var connection = Database.connect();
                var statement = connection.createStatement();
                var partitions = statement.executeQuery(
                        "SELECT CAST(relid AS text) FROM pg_partition_tree('" + S + ".event_outbox') WHERE isleaf")) {
            List<String> names = new ArrayList<>();
            while (partitions.next()) {
                names.add(partitions.getString(1));
            }
            for (String partition : names) {
                statement.execute("ALTER TABLE " + partition + " SET " + state);
            }
        }
    }

    private static double median(Map<String, List<double[]>> runs, String variant, int figure) {
        return median(runs.get(variant).stream().map(r -> r[figure]).toList());
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
