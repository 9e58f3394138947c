import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What staging costs the transaction it joins, through pgbench (the database is where its cost lies), in two
 * measurements that each take turns within rounds, so the variants compared meet the same machine.
 *
 * <p>{@code business}: a business transaction of realistic size, the order with three lines and a stock update (five
 * statements, in tables of the benchmark's own beside the demo's), without and with the {@code order.placed} row as
 * {@code OutboxStager} writes it; one connection. The target (staging adds at most 10 %) applies here.
 *
 * <p>{@code concurrency}: staging at 1, 4, 16 and 64 connections (docs/decisions/0082-in-process-wake-up.md): the
 * demo's one-insert order transaction four ways:
 * <ul>
 *   <li>{@code alone}: the order's insert, no event (what the event costs at all, for scale);
 *   <li>{@code unwoken}: with the {@code order.placed} row and no wake-up of any kind, the outbox's insert trigger
 *       disabled (the limit: what staging would cost if nothing woke the drains);
 *   <li>{@code staged}: with the row as {@code OutboxStager} writes it ({@code notify_drains = false}: the trigger's
 *       condition is false, and the server wakes its own drain in the process after the commit);
 *   <li>{@code notifying}: with the same row inserted by SQL, whose trigger queues a {@code pg_notify} for the
 *       drains' LISTEN connections (the cluster-wide notify lock at commit).
 * </ul>
 * The tables are emptied before every run, so no run inherits another's rows. Each figure is the median of the
 * rounds; the ratios are the medians of each round's ratio to {@code unwoken} in the same round.
 *
 * <pre>
 * java BenchStaging.java business SCHEMA SECONDS ROUNDS      (PostgreSQL from the PG* variables; SCHEMA migrated,
 *   -> "without_ms with_ms ratio"                              no server on it)
 * java BenchStaging.java concurrency SCHEMA SECONDS ROUNDS
 *   -> per connection count:
 *      "connections alone_tps unwoken_tps staged_tps notifying_tps staged_ratio notifying_ratio"
 * </pre>
 */
public class BenchStaging {
    private static final int[] CONNECTIONS = {1, 4, 16, 64};
    private static final Pattern TPS = Pattern.compile("(?m)^tps = ([0-9.]+)");

    enum Variant {
        ALONE,
        UNWOKEN,
        STAGED,
        NOTIFYING
    }

    public static void main(String[] args) throws Exception {
        String schema = args[1];
        int seconds = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        switch (args[0]) {
            case "business" -> business(schema, seconds, rounds);
            case "concurrency" -> concurrency(schema, seconds, rounds);
            default -> throw new IllegalArgumentException("unknown measurement " + args[0]);
        }
    }

    /** The order with its lines and a stock update, without and with its event, one connection. */
    static void business(String schema, int seconds, int rounds) throws Exception {
        psql("CREATE TABLE " + schema + ".bench_order_lines (order_id uuid NOT NULL REFERENCES " + schema
                + ".demo_orders (id), line int NOT NULL, sku text NOT NULL, quantity int NOT NULL,"
                + " PRIMARY KEY (order_id, line));"
                + " CREATE TABLE " + schema + ".bench_stock (sku text PRIMARY KEY, on_hand bigint NOT NULL);"
                + " INSERT INTO " + schema + ".bench_stock SELECT 'book-' || n, 1000000000"
                + " FROM generate_series(1, 1000) n");
        Path without = script("business-without", businessTransaction(schema, false));
        Path with = script("business-with", businessTransaction(schema, true));
        List<Double> withoutMs = new ArrayList<>();
        List<Double> withMs = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            empty(schema);
            double a = 1_000 / pgbench(without, 1, seconds);
            empty(schema);
            double b = 1_000 / pgbench(with, 1, seconds);
            withoutMs.add(a);
            withMs.add(b);
            ratios.add(b / a);
        }
        psql("DROP TABLE " + schema + ".bench_order_lines, " + schema + ".bench_stock");
        empty(schema);
        System.out.printf(Locale.ROOT, "%.3f %.3f %.2f%n", median(withoutMs), median(withMs), median(ratios));
    }

    /** Five statements of business work, then (with the event) the row as OutboxStager writes it. */
    static String businessTransaction(String schema, boolean withEvent) {
        StringBuilder sql = new StringBuilder(orderBegun(schema, 1_000, 3));
        for (int line = 1; line <= 3; line++) {
            sql.append("INSERT INTO ")
                    .append(schema)
                    .append(".bench_order_lines VALUES (current_setting('bench.order_id')::uuid, ")
                    .append(line)
                    .append(", 'book-' || :n, 1);\n");
        }
        sql.append("UPDATE ")
                .append(schema)
                .append(".bench_stock SET on_hand = on_hand - 3 WHERE sku = 'book-' || :n;\n");
        if (withEvent) {
            sql.append(outboxInsert(schema, false));
        }
        return sql.append("COMMIT;\n").toString();
    }

    static void concurrency(String schema, int seconds, int rounds) throws Exception {
        Map<Variant, Path> scripts = new EnumMap<>(Variant.class);
        for (Variant variant : Variant.values()) {
            scripts.put(variant, script(variant.name().toLowerCase(Locale.ROOT), transaction(schema, variant)));
        }
        for (int connections : CONNECTIONS) {
            Map<Variant, List<Double>> tps = new EnumMap<>(Variant.class);
            List<Double> stagedRatios = new ArrayList<>();
            List<Double> notifyingRatios = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                Map<Variant, Double> thisRound = new EnumMap<>(Variant.class);
                for (Variant variant : Variant.values()) {
                    empty(schema);
                    // Unwoken: the outbox's insert trigger disabled for the run, so nothing at all wakes a drain.
                    trigger(schema, variant == Variant.UNWOKEN ? "DISABLE" : "ENABLE");
                    double measured = pgbench(scripts.get(variant), connections, seconds);
                    thisRound.put(variant, measured);
                    tps.computeIfAbsent(variant, v -> new ArrayList<>()).add(measured);
                }
                stagedRatios.add(thisRound.get(Variant.STAGED) / thisRound.get(Variant.UNWOKEN));
                notifyingRatios.add(thisRound.get(Variant.NOTIFYING) / thisRound.get(Variant.UNWOKEN));
            }
            System.out.printf(
                    Locale.ROOT,
                    "%d %.0f %.0f %.0f %.0f %.2f %.2f%n",
                    connections,
                    median(tps.get(Variant.ALONE)),
                    median(tps.get(Variant.UNWOKEN)),
                    median(tps.get(Variant.STAGED)),
                    median(tps.get(Variant.NOTIFYING)),
                    median(stagedRatios),
                    median(notifyingRatios));
        }
        trigger(schema, "ENABLE");
        empty(schema);
    }

    private static void trigger(String schema, String state) throws IOException, InterruptedException {
        psql("ALTER TABLE " + schema + ".event_outbox " + state + " TRIGGER event_outbox_staged");
    }

    /** The demo's order transaction; the event variants write the row the stager writes, but for its flag. */
    static String transaction(String schema, Variant variant) {
        StringBuilder sql = new StringBuilder(orderBegun(schema, 1_000_000, 1));
        if (variant != Variant.ALONE) {
            // Unwoken: the row as the stager writes it, measured with the trigger disabled.
            sql.append(outboxInsert(schema, variant == Variant.NOTIFYING));
        }
        return sql.append("COMMIT;\n").toString();
    }

    /**
     * A transaction begun with the demo's order of {@code quantity} of one of {@code skus} books. pgbench has no uuid
     * variables: the order's id is picked first, the same statement in every variant.
     */
    static String orderBegun(String schema, int skus, int quantity) {
        return "\\set n random(1, " + skus + ")\n"
                + "BEGIN;\n"
                + "SELECT set_config('bench.order_id', gen_random_uuid()::text, true);\n"
                + "INSERT INTO " + schema + ".demo_orders (id, customer, sku, quantity)"
                + " VALUES (current_setting('bench.order_id')::uuid, 'bench', 'book-' || :n, " + quantity + ");\n";
    }

    /** The order.placed row of the order picked first in the transaction; notifying as an SQL insert, or not as the stager. */
    static String outboxInsert(String schema, boolean notifying) {
        return "INSERT INTO " + schema + ".event_outbox (id, aggregate_id, event_type, envelope, notify_drains)"
                + " SELECT e, o, 'order.placed', jsonb_build_object('id', e, 'event_type', 'order.placed',"
                + " 'source_service', 'bench', 'aggregate_id', o, 'occurred_at', '2026-01-01T00:00:00.000Z',"
                + " 'schema_version', 1, 'correlation_id', e, 'causation_id', null, 'payload',"
                + " jsonb_build_object('order_id', o, 'customer', 'bench', 'sku', 'book-' || :n, 'quantity', 1)), "
                + notifying
                + " FROM (SELECT " + schema + ".durability_new_uuid7() AS e, current_setting('bench.order_id')::uuid AS o)"
                + " ids;\n";
    }

    /** Empties the demo's orders (and what refers to them) and the outbox, so no run inherits another's rows. */
    static void empty(String schema) throws IOException, InterruptedException {
        psql("TRUNCATE " + schema + ".demo_orders, " + schema + ".event_outbox CASCADE");
    }

    static Path script(String name, String sql) throws IOException {
        Path script = Files.createTempFile("staging-" + name, ".sql");
        script.toFile().deleteOnExit();
        Files.writeString(script, sql, StandardCharsets.UTF_8);
        return script;
    }

    /** Transactions per second of one pgbench run; its threads as many as the machine's cores, never more than its clients. */
    static double pgbench(Path script, int connections, int seconds) throws IOException, InterruptedException {
        int threads = Math.min(connections, Runtime.getRuntime().availableProcessors());
        String output = run(List.of(
                "pgbench", "-n", "-c", Integer.toString(connections), "-j", Integer.toString(threads),
                "-T", Integer.toString(seconds), "-f", script.toString()));
        Matcher tps = TPS.matcher(output);
        if (!tps.find()) {
            throw new IllegalStateException("pgbench printed no tps:\n" + output);
        }
        return Double.parseDouble(tps.group(1));
    }

    static void psql(String sql) throws IOException, InterruptedException {
        run(List.of("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-c", sql));
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
