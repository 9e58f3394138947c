package dev.durability.bench.server;

import dev.durability.bench.db.BenchSchema;
import dev.durability.it.LibertyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The servers of one benchmark run, started when an experiment first needs them and stopped at its end. They share
 * the schema {@value #SCHEMA}, made afresh by the first server's start; the first server (port 9280) serves every
 * experiment on the API, the second and third join it for the drains, and one more serves the API without waking its
 * drain. Each runs the EAR as shipped, plus the no-op consumer ({@link NoopWar}), with the full JIT (the harness
 * stops it at its first tier for a test's short-lived servers) and a broker address of its own (the shared test
 * server's list holds a node that refuses every connection).
 */
public final class BenchServers implements AutoCloseable {
    public static final String SCHEMA = "durability_bench";
    private static final int PORT = 9280;
    private static final int UNWOKEN_PORT = 9284;

    private final int batch;
    private final Map<String, LibertyServer> running = new LinkedHashMap<>();
    private boolean schemaMade;

    /** Servers whose drains claim {@code batch} rows at a time. */
    public BenchServers(int batch) {
        this.batch = batch;
    }

    /** The first server, which every experiment on the API uses. */
    public LibertyServer first() {
        return started("durability-bench", PORT, Map.of("DURABILITY_INSTANCE_NAME", "bench"));
    }

    /** The {@code n}th server draining the same schema (2 or 3). */
    public LibertyServer drainer(int n) {
        first();
        return started("durability-bench" + n, PORT + n - 1, Map.of("DURABILITY_INSTANCE_NAME", "bench" + n));
    }

    /**
     * A server of the same schema whose staging wakes no drain ({@code durability.outbox.wake-on-staging=false}):
     * the same order through the same API, without the wake-up the shipped server does after a commit.
     */
    public LibertyServer unwoken() {
        first();
        return started(
                "durability-bench-unwoken",
                UNWOKEN_PORT,
                Map.of(
                        "DURABILITY_INSTANCE_NAME", "bench-unwoken",
                        "DURABILITY_OUTBOX_WAKE_ON_STAGING", "false"));
    }

    /** The pids of the servers running now: Liberty's processes, whose CPU time a drain counts. */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        for (LibertyServer server : running.values()) {
            try {
                pids.add(server.pid());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return pids;
    }

    /** Stops one of the run's servers. */
    public void stop(LibertyServer server) {
        running.values().remove(server);
        server.stop();
    }

    /** Stops every server; the schema stays, for the experiments on the database alone. */
    @Override
    public void close() {
        for (LibertyServer server : new ArrayList<>(running.values())) {
            stop(server);
        }
    }

    /**
     * A server of its own on its own schema, as the sustained load runs one: the caller stops it and drops the
     * schema.
     */
    public static LibertyServer startAlone(String name, int port, String schema, Map<String, String> env)
            throws IOException, SQLException {
        BenchSchema.drop(schema);
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put("DB_SCHEMA", schema);
        LibertyServer server = create(name, port, all);
        startOrStop(server);
        try {
            BenchSchema.inService(schema);
        } catch (SQLException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Starts a server; one whose application did not start is stopped, not left running. */
    private static void startOrStop(LibertyServer server) throws IOException {
        try {
            server.start();
            server.awaitApplicationStarted();
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    private LibertyServer started(String name, int port, Map<String, String> env) {
        LibertyServer server = running.get(name);
        if (server != null) {
            return server;
        }
        try {
            if (!schemaMade) {
                BenchSchema.drop(SCHEMA);
            }
            Map<String, String> all = new LinkedHashMap<>(env);
            all.put("DB_SCHEMA", SCHEMA);
            all.put("DURABILITY_OUTBOX_BATCH_SIZE", Integer.toString(batch));
            server = create(name, port, all);
            startOrStop(server);
            running.put(name, server);
            if (!schemaMade) {
                BenchSchema.inService(SCHEMA);
                schemaMade = true;
            }
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare schema " + SCHEMA, e);
        }
    }

    private static LibertyServer create(String name, int port, Map<String, String> env) throws IOException {
        Map<String, String> all = new LinkedHashMap<>();
        // The inbox on: the demo's shipments consumer and the no-op consumer consume this schema's events.
        all.put("DURABILITY_INBOX_ENABLED", "true");
        all.put(
                "DURABILITY_BROKER_ADDRESSES",
                dev.durability.it.Coordinates.brokerHost() + ":" + dev.durability.it.Coordinates.brokerPort());
        all.putAll(env);
        LibertyServer server = LibertyServer.copyOfMain(name, port, all);
        NoopWar.addTo(server.directory().resolve("apps/durability.ear"));
        // The JIT a server in service runs with; the harness's JVM_ARGS would stop it at its first tier.
        server.launchedWith(Map.of("JVM_ARGS", ""));
        return server;
    }

    /** The shared test server's folder, which every bench server is copied from (bench/run builds it). */
    public static void useTestServerOf(Path repository) {
        Path main = repository.resolve("system-tests/target/liberty/wlp/usr/servers/durability-it");
        if (!Files.isDirectory(main.resolve("apps"))) {
            throw new IllegalStateException(main + " is missing: bench/run builds it (mvn -pl bench -am package)");
        }
        System.setProperty("it.server.dir", main.toAbsolutePath().toString());
    }
}
