import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scenario behind docs/images/dashboard.png: two servers of the reference deployment (snapshot-a, snapshot-b,
 * prepared by ./run) take orders through the demo API while the broker goes away for a while, a few poison messages
 * reach the shipments consumer and dead-letter, and one server is killed. Writes the scenario's time range and its
 * events to a properties file that DashboardSnapshot.java draws from.
 *
 * <p>Usage: {@code java -cp <amqp-client, slf4j-api> SnapshotTraffic.java <wlp> <vhost> <scenario.properties>}
 */
public class SnapshotTraffic {
    private static final String USER = "ada:ada-demo";
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final Path wlp;
    private final String vhost;
    private final Properties scenario = new Properties();
    private final List<String> events = new ArrayList<>();
    private final AtomicInteger placed = new AtomicInteger();
    private final AtomicInteger replayed = new AtomicInteger();
    private final AtomicInteger unanswered = new AtomicInteger();
    private volatile boolean placing = true;
    private volatile List<URI> servers = List.of(URI.create("http://localhost:9381"), URI.create("http://localhost:9382"));

    private SnapshotTraffic(Path wlp, String vhost) {
        this.wlp = wlp;
        this.vhost = vhost;
    }

    public static void main(String[] args) throws Exception {
        SnapshotTraffic traffic = new SnapshotTraffic(Path.of(args[0]), args[1]);
        try {
            traffic.run();
        } finally {
            traffic.stopServers();
        }
        traffic.write(Path.of(args[2]));
    }

    private void run() throws Exception {
        startServer("snapshot-a");
        startServer("snapshot-b");
        awaitStarted("snapshot-a");
        awaitStarted("snapshot-b");
        // Prometheus has seen both servers before the range starts.
        Thread.sleep(10_000);
        scenario.setProperty("from", Long.toString(Instant.now().getEpochSecond()));
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            int client = c;
            Thread thread = new Thread(() -> placeOrders(client), "client-" + c);
            thread.setDaemon(true);
            thread.start();
            clients.add(thread);
        }
        Thread.sleep(60_000);

        event("broker outage");
        // The vhost refuses connections and loses the ones it had: an outage for these two servers only.
        rabbitmqctl("set_vhost_limits", "-p", vhost, "{\"max-connections\": 0}");
        rabbitmqctl("close_all_connections", "-p", vhost, "snapshot: broker outage");
        Thread.sleep(45_000);
        rabbitmqctl("clear_vhost_limits", "-p", vhost);
        event("broker back");
        Thread.sleep(45_000);

        event("15 poison messages");
        poison(15);
        Thread.sleep(45_000);

        event("snapshot-b killed");
        servers = List.of(URI.create("http://localhost:9381"));
        kill("snapshot-b");
        Thread.sleep(75_000);

        placing = false;
        for (Thread client : clients) {
            client.join(15_000);
        }
        event("orders stop");
        Thread.sleep(30_000);
        scenario.setProperty("to", Long.toString(Instant.now().getEpochSecond()));
        System.out.printf(
                "placed %d orders, replayed %d keys, %d requests without an answer%n",
                placed.get(), replayed.get(), unanswered.get());
    }

    /** A client of the demo API: an order every 300 ms, each with its own key; every tenth key is sent twice. */
    private void placeOrders(int client) {
        for (int n = 0; placing; n++) {
            String key = UUID.randomUUID().toString();
            String body = "{\"customer\":\"snapshot-" + client + "-" + n + "\",\"sku\":\"book-1\",\"quantity\":1}";
            List<URI> targets = servers;
            URI server = targets.get(Math.floorMod(client + n, targets.size()));
            if (post(server, key, body) == 201) {
                placed.incrementAndGet();
            }
            if (n % 10 == 0 && post(server, key, body) == 201) {
                replayed.incrementAndGet();
            }
            pause(300);
        }
    }

    private int post(URI server, String key, String body) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(server.resolve("/api/orders"))
                            .timeout(Duration.ofSeconds(10))
                            .header("Authorization", "Basic " + Base64.getEncoder()
                                    .encodeToString(USER.getBytes(StandardCharsets.UTF_8)))
                            .header("Content-Type", "application/json")
                            .header("Idempotency-Key", key)
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode();
        } catch (IOException e) {
            unanswered.incrementAndGet();
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Envelopes of order.placed with no order in them: the shipments consumer refuses them for good. */
    private void poison(int count) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(env("DURABILITY_BROKER_HOST", "127.0.0.1"));
        factory.setPort(Integer.parseInt(env("DURABILITY_BROKER_PORT", "5672")));
        factory.setUsername(env("DURABILITY_BROKER_USERNAME", "guest"));
        factory.setPassword(env("DURABILITY_BROKER_PASSWORD", "guest"));
        factory.setVirtualHost(vhost);
        try (Connection connection = factory.newConnection("snapshot-poison");
                Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            for (int i = 0; i < count; i++) {
                String id = UUID.randomUUID().toString();
                String body = "{\"id\":\"" + id + "\",\"event_type\":\"order.placed\",\"source_service\":\"orders\","
                        + "\"aggregate_id\":\"" + UUID.randomUUID() + "\",\"occurred_at\":\""
                        + DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
                                .withZone(ZoneOffset.UTC)
                                .format(Instant.now())
                        + "\",\"schema_version\":1,\"correlation_id\":\"" + id + "\",\"causation_id\":null,"
                        + "\"payload\":{\"sku\":\"book-1\"}}";
                channel.basicPublish(
                        "",
                        "orders.shipments",
                        new AMQP.BasicProperties.Builder()
                                .contentType("application/json")
                                .messageId(id)
                                .type("order.placed")
                                .deliveryMode(2)
                                .build(),
                        body.getBytes(StandardCharsets.UTF_8));
            }
            channel.waitForConfirmsOrDie(10_000);
        }
    }

    private void event(String what) {
        long at = Instant.now().getEpochSecond();
        events.add(at + " " + what);
        System.out.println(Instant.ofEpochSecond(at) + " " + what);
    }

    private void write(Path file) throws IOException {
        scenario.setProperty("events", String.join(";", events));
        // What the picture shows that the scenario, not a fault, explains: drawn under the panels' titles.
        scenario.setProperty(
                "note.Unroutable rows",
                "shipment.created and dlq.threshold_exceeded: no service here consumes them");
        scenario.setProperty(
                "note.Retention: rows pruned and failures per hour",
                "retention runs hourly (plus jitter): no run falls in this range");
        Files.createDirectories(file.getParent());
        try (var out = Files.newBufferedWriter(file)) {
            scenario.store(out, "the dashboard snapshot's scenario (SnapshotTraffic.java)");
        }
    }

    private void startServer(String name) {
        run(Map.of("JVM_ARGS", "-XX:TieredStopAtLevel=1"), wlp.resolve("bin/server").toString(), "start", name);
    }

    private void awaitStarted(String name) throws InterruptedException {
        Path log = wlp.resolve("usr/servers").resolve(name).resolve("logs/messages.log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            String text = read(log);
            if (text.contains("CWWKZ0002E") || text.contains("CWWKZ0004E")) {
                throw new IllegalStateException("application failed to start on " + name + ":\n" + text);
            }
            if (text.contains("CWWKZ0001I: Application durability started")) {
                System.out.println(name + " started");
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(name + " did not start in 180 s:\n" + read(log));
    }

    /** SIGKILL to the server's JVM: no shutdown, its claims and connections left behind as a crash leaves them. */
    private void kill(String name) throws Exception {
        Path pidFile = wlp.resolve("usr/servers/.pid").resolve(name + ".pid");
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        process.destroyForcibly();
        process.onExit().get(30, TimeUnit.SECONDS);
        Files.deleteIfExists(pidFile);
    }

    private void stopServers() {
        for (String name : List.of("snapshot-a", "snapshot-b")) {
            try {
                run(Map.of(), wlp.resolve("bin/server").toString(), "stop", name);
            } catch (RuntimeException e) {
                System.err.println("stopping " + name + ": " + e.getMessage());
            }
        }
    }

    private static void rabbitmqctl(String... arguments) {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(arguments));
        run(Map.of(), command.toArray(String[]::new));
    }

    private static void run(Map<String, String> environment, String... command) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish");
            }
            // server stop of a server that is not running exits 1: the state wanted.
            boolean stopped = command.length > 1 && command[1].equals("stop") && process.exitValue() == 1;
            if (process.exitValue() != 0 && !stopped) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue() + ":\n"
                        + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
