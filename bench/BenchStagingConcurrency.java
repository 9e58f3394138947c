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
 * Staging at 1, 4, 16 and 64 connections (docs/decisions/0082-in-process-wake-up.md): pgbench runs the demo's
 * order transaction three ways, taking turns within each round so all three meet the same machine:
 * <ul>
 *   <li>{@code alone}: the order's insert, no event (the limit);
 *   <li>{@code staged}: with the {@code order.placed} row as {@code OutboxStager} writes it
 *       ({@code notify_drains = false}: the server wakes its own drain in the process after the commit);
 *   <li>{@code notifying}: with the same row inserted by SQL, whose trigger queues a {@code pg_notify} for the
 *       drains' LISTEN connections (the cluster-wide notify lock at commit).
 * </ul>
 * The tables are emptied before every run, so no run inherits another's rows. Each figure is the median of the
 * rounds; the ratios are the medians of each round's ratio to {@code alone} in the same round.
 *
 * <pre>
 * java BenchStagingConcurrency.java SCHEMA SECONDS ROUNDS   (PostgreSQL from the PG* variables; SCHEMA migrated,
 *                                                             no server on it)
 *   -> per connection count: "connections alone_tps staged_tps notifying_tps staged_ratio notifying_ratio"
 * </pre>
 */
public class BenchStagingConcurrency {
    private static final int[] CONNECTIONS = {1, 4, 16, 64};
    private static final Pattern TPS = Pattern.compile("(?m)^tps = ([0-9.]+)");

    enum Variant {
        ALONE,
        STAGED,
        NOTIFYING
    }

    public static void main(String[] args) throws Exception {
        String schema = args[0];
        int seconds = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        Map<Variant, Path> scripts = new EnumMap<>(Variant.class);
        for (Variant variant : Variant.values()) {
            Path script = Files.createTempFile("staging-" + variant.name().toLowerCase(Locale.ROOT), ".sql");
            script.toFile().deleteOnExit();
            Files.writeString(script, transaction(schema, variant), StandardCharsets.UTF_8);
            scripts.put(variant, script);
        }
        for (int connections : CONNECTIONS) {
            Map<Variant, List<Double>> tps = new EnumMap<>(Variant.class);
            List<Double> stagedRatios = new ArrayList<>();
            List<Double> notifyingRatios = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                Map<Variant, Double> thisRound = new EnumMap<>(Variant.class);
                for (Variant variant : Variant.values()) {
                    psql("TRUNCATE " + schema + ".demo_orders CASCADE; TRUNCATE " + schema + ".event_outbox");
                    double measured = pgbench(scripts.get(variant), connections, seconds);
                    thisRound.put(variant, measured);
                    tps.computeIfAbsent(variant, v -> new ArrayList<>()).add(measured);
                }
                stagedRatios.add(thisRound.get(Variant.STAGED) / thisRound.get(Variant.ALONE));
                notifyingRatios.add(thisRound.get(Variant.NOTIFYING) / thisRound.get(Variant.ALONE));
            }
            System.out.printf(
                    Locale.ROOT,
                    "%d %.0f %.0f %.0f %.2f %.2f%n",
                    connections,
                    median(tps.get(Variant.ALONE)),
                    median(tps.get(Variant.STAGED)),
                    median(tps.get(Variant.NOTIFYING)),
                    median(stagedRatios),
                    median(notifyingRatios));
        }
        psql("TRUNCATE " + schema + ".demo_orders CASCADE; TRUNCATE " + schema + ".event_outbox");
    }

    /** The demo's order transaction; both event variants write the row the stager writes, but for its flag. */
    static String transaction(String schema, Variant variant) {
        StringBuilder sql = new StringBuilder()
                .append("\\set n random(1, 1000000)\n")
                .append("BEGIN;\n")
                // pgbench has no uuid variables: the order's id is picked first, the same statement in each variant.
                .append("SELECT set_config('bench.order_id', gen_random_uuid()::text, true);\n")
                .append("INSERT INTO ")
                .append(schema)
                .append(".demo_orders (id, customer, sku, quantity) VALUES (current_setting('bench.order_id')::uuid,")
                .append(" 'bench', 'book-' || :n, 1);\n");
        if (variant != Variant.ALONE) {
            sql.append("INSERT INTO ")
                    .append(schema)
                    .append(".event_outbox (id, aggregate_id, event_type, envelope, notify_drains)")
                    .append(" SELECT e, o, 'order.placed', jsonb_build_object('id', e, 'event_type', 'order.placed',")
                    .append(" 'source_service', 'bench', 'aggregate_id', o, 'occurred_at', '2026-01-01T00:00:00.000Z',")
                    .append(" 'schema_version', 1, 'correlation_id', e, 'causation_id', null, 'payload',")
                    .append(" jsonb_build_object('order_id', o, 'customer', 'bench', 'sku', 'book-' || :n, 'quantity', 1)),")
                    .append(variant == Variant.NOTIFYING ? " true" : " false")
                    .append(" FROM (SELECT gen_random_uuid() AS e, current_setting('bench.order_id')::uuid AS o) ids;\n");
        }
        return sql.append("COMMIT;\n").toString();
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
