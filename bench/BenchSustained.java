import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sustained staging under short retention windows: events committed as fast as four connections commit them, one
 * transaction each (as {@link BenchLag}'s SQL load), for SECONDS while a consumer notes each arrival,
 * and at the end of every WINDOW seconds the outbox's rows and size on disk (table and indexes), and the drain's
 * own claim statement timed on the live table (in transactions that roll back). Retention must hold the table's
 * size flat, and the claim time and the lag with it.
 *
 * <pre>
 * javac -d OUT BenchLag.java BenchSustained.java
 * java -cp OUT:amqp-client:slf4j-api:postgresql BenchSustained HOST PORT JDBC_URL USER PASSWORD SCHEMA SECONDS WINDOW CLAIM_SQL_FILE
 *   -> one line per window: "end_s committed arrived p50_ms p99_ms outbox_rows outbox_mib claim_ms"
 * </pre>
 *
 * An event counts in the window its commit fell in; the lag is its arrival minus its commit on this process's
 * monotonic clock. The claim file holds the claim statement with its parameters filled in.
 */
public class BenchSustained {
    private static final String EVENT_TYPE = "bench.sustained";
    private static final int CLAIMS_PER_SAMPLE = 20;
    private static final int STAGERS = 4;

    public static void main(String[] args) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(args[0]);
        factory.setPort(Integer.parseInt(args[1]));
        String jdbcUrl = args[2];
        String user = args[3];
        String password = args[4];
        String schema = args[5];
        int seconds = Integer.parseInt(args[6]);
        int window = Integer.parseInt(args[7]);
        String claim = Files.readString(Path.of(args[8]));

        Map<String, Long> committed = new ConcurrentHashMap<>();
        Map<String, Long> arrived = new ConcurrentHashMap<>();
        AtomicLong refused = new AtomicLong();
        int windows = seconds / window;
        String[] samples = new String[windows];
        long windowNanos = TimeUnit.SECONDS.toNanos(window);
        long start = System.nanoTime();
        long end = start + windows * windowNanos;
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (Connection connection = factory.newConnection("bench sustained");
                java.sql.Connection database = DriverManager.getConnection(jdbcUrl, user, password)) {
            Channel channel = BenchLag.arrivals(connection, "bench.sustained", EVENT_TYPE, false, arrived);
            for (int i = 0; i < windows; i++) {
                int index = i;
                long due = start + (i + 1) * windowNanos;
                sampler.schedule(
                        () -> samples[index] = sample(database, schema, claim),
                        due - System.nanoTime(),
                        TimeUnit.NANOSECONDS);
            }
            stageAsFastAsTheyCommit(jdbcUrl, user, password, schema, end, committed, refused);
            sampler.shutdown();
            sampler.awaitTermination(2, TimeUnit.MINUTES);
            BenchLag.awaitArrivals(committed, arrived);
            channel.queueDelete("bench.sustained");
        } finally {
            // A failed load or connection must not leave the sampler's thread keeping this JVM alive.
            sampler.shutdownNow();
        }
        if (refused.get() > 0) {
            System.err.println("events not committed (refused or failed): " + refused.get());
        }
        List<List<Long>> lags = new ArrayList<>();
        long[] arrivedPerWindow = new long[windows];
        long[] committedPerWindow = new long[windows];
        for (int i = 0; i < windows; i++) {
            lags.add(new ArrayList<>());
        }
        committed.forEach((id, at) -> {
            int index = (int) Math.min(windows - 1, Math.max(0, (at - start) / windowNanos));
            committedPerWindow[index]++;
            Long arrival = arrived.get(id);
            if (arrival != null) {
                arrivedPerWindow[index]++;
                lags.get(index).add(Math.max(0, arrival - at));
            }
        });
        for (int i = 0; i < windows; i++) {
            List<Long> sorted = lags.get(i);
            Collections.sort(sorted);
            System.out.println(String.format(
                    Locale.ROOT,
                    "%d %d %d %.2f %.2f %s",
                    (i + 1) * window,
                    committedPerWindow[i],
                    arrivedPerWindow[i],
                    BenchLag.percentile(sorted, 0.50),
                    BenchLag.percentile(sorted, 0.99),
                    samples[i] == null ? "NaN NaN NaN" : samples[i]));
        }
    }

    /**
     * Four connections each commit one event per transaction, the next as soon as the last committed, until
     * {@code end} (nanoTime): the most this machine stages through them while the drain, retention and vacuum run.
     * An open-loop rate above that would only queue events in this process.
     */
    private static void stageAsFastAsTheyCommit(
            String jdbcUrl,
            String user,
            String password,
            String schema,
            long end,
            Map<String, Long> committed,
            AtomicLong refused)
            throws Exception {
        List<Thread> stagers = new ArrayList<>();
        for (int i = 0; i < STAGERS; i++) {
            Thread stager = new Thread(() -> {
                // Unqualified, on the schema's search path, as BenchLag stages (its insert trigger's channel).
                try (java.sql.Connection connection = DriverManager.getConnection(
                                jdbcUrl + "?currentSchema=" + schema, user, password);
                        java.sql.PreparedStatement insert = connection.prepareStatement(
                                "INSERT INTO event_outbox (id, aggregate_id, event_type, envelope)"
                                        + " VALUES (CAST(? AS uuid), CAST(? AS uuid), ?, CAST(? AS jsonb))")) {
                    while (System.nanoTime() < end) {
                        String id = BenchLag.IDS.generate().toString();
                        String aggregate = UUID.randomUUID().toString();
                        insert.setString(1, id);
                        insert.setString(2, aggregate);
                        insert.setString(3, EVENT_TYPE);
                        insert.setString(4, BenchLag.envelope(id, aggregate, EVENT_TYPE));
                        try {
                            insert.executeUpdate(); // autocommit: one transaction per event
                            committed.put(id, System.nanoTime());
                        } catch (java.sql.SQLException e) {
                            refused.incrementAndGet();
                        }
                    }
                } catch (java.sql.SQLException e) {
                    System.err.println("stager failed: " + e);
                }
            });
            stager.start();
            stagers.add(stager);
        }
        for (Thread stager : stagers) {
            stager.join();
        }
    }

    /** "rows mib claim_ms": the outbox's rows, its size with its indexes, and the mean of a few claims. */
    private static String sample(java.sql.Connection database, String schema, String claim) {
        try (Statement statement = database.createStatement()) {
            long rows;
            double mib;
            // A partitioned table's size is its partitions' (docs/decisions/0093-outbox-partitioned-by-day.md).
            try (ResultSet result = statement.executeQuery("SELECT (SELECT count(*) FROM " + schema + ".event_outbox),"
                    + " (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('" + schema
                    + ".event_outbox')) / 1048576.0")) {
                result.next();
                rows = result.getLong(1);
                mib = result.getDouble(2);
            }
            database.setAutoCommit(false);
            long total = 0;
            for (int i = 0; i < CLAIMS_PER_SAMPLE; i++) {
                // The claim's own plan settings, as the drain sets them for its transaction.
                statement.execute("SELECT set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)");
                long start = System.nanoTime();
                statement.execute(claim);
                total += System.nanoTime() - start;
                database.rollback();
            }
            database.setAutoCommit(true);
            return String.format(Locale.ROOT, "%d %.1f %.2f", rows, mib, total / 1e6 / CLAIMS_PER_SAMPLE);
        } catch (Exception e) {
            System.err.println("sample failed: " + e);
            try {
                database.rollback();
                database.setAutoCommit(true);
            } catch (Exception ignored) {
                // The next sample fails the same way and says so.
            }
            return "NaN NaN NaN";
        }
    }
}
