package dev.durability.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One more RabbitMQ node on this machine, beside the machine's own broker (which it leaves alone): its own node
 * name, ports, data and configuration, in a directory of its own under the temporary directory. Started with the machine's {@code rabbitmq-server}
 * (docs/testing.md), stopped with {@code rabbitmqctl shutdown}. Several of them can form a cluster of their own
 * ({@link #joinCluster}); the machine's broker stays out of it.
 */
final class RabbitmqNode implements AutoCloseable {
    private final String name;
    private final Path directory;

    private RabbitmqNode(String name, Path directory) {
        this.name = name;
        this.directory = directory;
    }

    /**
     * Starts node {@code name}@localhost with these lines of rabbitmq.conf (its listeners among them) and waits until
     * it serves. {@code distributionPort} is its Erlang distribution port, one per node.
     */
    static RabbitmqNode start(String name, int distributionPort, List<String> configuration) {
        return launch(name, distributionPort, configuration).awaitStarted();
    }

    /**
     * Launches node {@code name}@localhost as {@link #start} does, without waiting for it: nodes launched one after
     * the other boot side by side, then {@link #awaitStarted()} each.
     */
    static RabbitmqNode launch(String name, int distributionPort, List<String> configuration) {
        // Outside the checkout: the broker runs as user rabbitmq, which must reach its directory.
        Path directory = Path.of(System.getProperty("java.io.tmpdir"), "durability-rabbitmq-nodes", name);
        RabbitmqNode node = new RabbitmqNode(name + "@localhost", directory);
        node.stopQuietly(); // left running by an aborted earlier run
        try {
            deleteRecursively(directory);
            Files.createDirectories(directory.resolve("mnesia"));
            Files.createDirectories(directory.resolve("log"));
            Files.writeString(directory.resolve("enabled_plugins"), "[].\n");
            Files.writeString(
                    directory.resolve("rabbitmq.conf"), String.join("\n", configuration) + "\nloopback_users = none\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The Debian rabbitmq-server runs the node as user rabbitmq: its files must be that user's.
        Commands.run(List.of("chown", "-R", "rabbitmq:rabbitmq", directory.toString()), Set.of(0));
        ProcessBuilder server = new ProcessBuilder("setsid", "rabbitmq-server")
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("server.out").toFile());
        Map<String, String> env = server.environment();
        env.put("RABBITMQ_NODENAME", node.name);
        env.put("RABBITMQ_DIST_PORT", Integer.toString(distributionPort));
        env.put("RABBITMQ_MNESIA_BASE", directory.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", directory.resolve("log").toString());
        env.put("RABBITMQ_PID_FILE", directory.resolve("pid").toString());
        env.put(
                "RABBITMQ_ENABLED_PLUGINS_FILE",
                directory.resolve("enabled_plugins").toString());
        env.put("RABBITMQ_CONFIG_FILE", directory.resolve("rabbitmq.conf").toString());
        try {
            server.start();
        } catch (IOException e) {
            throw new AssertionError("rabbitmq-server is needed by this test (README, Prerequisites)", e);
        }
        return node;
    }

    /** Waits until the node serves. */
    RabbitmqNode awaitStarted() {
        RabbitmqNode node = this;
        // await_startup fails at once until the node has registered its name; then it waits for the boot.
        await("RabbitMQ node " + node.name + " started")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions()
                .until(() -> {
                    Commands.run(List.of("rabbitmqctl", "-n", node.name, "-t", "60", "await_startup"), Set.of(0));
                    return true;
                });
        return node;
    }

    /** The node's name, {@code name@localhost}. */
    String name() {
        return name;
    }

    /** Makes this fresh node a member of {@code seed}'s cluster (its own data is reset by joining). */
    void joinCluster(RabbitmqNode seed) {
        ctl("stop_app");
        ctl("join_cluster", seed.name);
        ctl("start_app");
        ctl("-t", "60", "await_startup");
    }

    /** Refuses new client connections (existing ones stay): a client with a list of nodes connects elsewhere. */
    void suspendListeners() {
        ctl("suspend_listeners");
    }

    void resumeListeners() {
        ctl("resume_listeners");
    }

    /** The node that leads queue {@code queue} of the default virtual host, as this node's cluster knows it. */
    String leaderOf(String queue) {
        for (String line : ctl("-q", "list_queues", "name", "leader").split("\n")) {
            String[] columns = line.trim().split("\t");
            if (columns.length == 2 && columns[0].equals(queue)) {
                return columns[1];
            }
        }
        throw new AssertionError("no queue " + queue + " on the cluster of " + name);
    }

    /** The type of queue {@code queue} of the default virtual host: classic, quorum or stream. */
    String typeOf(String queue) {
        for (String line : ctl("-q", "list_queues", "name", "type").split("\n")) {
            String[] columns = line.trim().split("\t");
            if (columns.length == 2 && columns[0].equals(queue)) {
                return columns[1];
            }
        }
        throw new AssertionError("no queue " + queue + " on the cluster of " + name);
    }

    /**
     * The server ports (one per node on this machine) of the cluster's client connections whose name contains
     * {@code named}: which nodes hold a client's connections.
     */
    List<Integer> connectionPorts(String named) {
        return java.util.Arrays.stream(ctl("-q", "list_connections", "port", "client_properties")
                        .split("\n"))
                .filter(line -> line.contains(named))
                .map(line -> Integer.valueOf(line.trim().split("\t")[0]))
                .toList();
    }

    /** Kills the node's Erlang VM with SIGKILL: no goodbye to its clients or its cluster, as a lost host. */
    void kill() {
        try {
            String pid = Files.readString(directory.resolve("pid")).trim();
            Commands.run(List.of("kill", "-9", pid), Set.of(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String ctl(String... arguments) {
        List<String> line = new java.util.ArrayList<>(List.of("rabbitmqctl", "-n", name));
        line.addAll(List.of(arguments));
        return Commands.run(line, Set.of(0));
    }

    /** Files of this node's own, readable by the broker (certificates): written into its directory. */
    Path directory() {
        return directory;
    }

    /** Shuts the node down; one a test killed is unreachable already (69), which is no failure. */
    @Override
    public void close() {
        Commands.run(List.of("rabbitmqctl", "-n", name, "shutdown"), Set.of(0, 69));
    }

    private void stopQuietly() {
        Commands.run(List.of("rabbitmqctl", "-n", name, "-t", "10", "shutdown"), Set.of(0, 64, 68, 69, 70, 75));
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (var paths = Files.walk(path)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
