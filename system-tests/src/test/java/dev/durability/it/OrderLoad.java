package dev.durability.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Orders placed through the demo API the way a careful client places them: each order has its own
 * {@code Idempotency-Key} and customer tag, and any answer that is not definite (a 5xx, a 409 while the first
 * attempt runs, a connection refused or timed out) is retried with the same key, on the next server of the
 * list, until a definite answer or the end of the load. What each order became is kept for the accounting.
 */
final class OrderLoad implements AutoCloseable {
    /** What the client knows of one order in the end. */
    enum Outcome {
        /** A 201, first or replayed: the order exists. */
        ACCEPTED,
        /** Refused with a 4xx other than 409: the order does not exist, and the client was told. */
        REFUSED,
        /** No definite answer before the load ended: the order may or may not exist. */
        UNKNOWN
    }

    private static final Pattern PLACED =
            Pattern.compile("order-exists.*order ([0-9a-f-]{36}) already exists", Pattern.DOTALL);

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final String tag;
    private final List<URI> servers;
    private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Map<String, UUID> orderIds = new ConcurrentHashMap<>();
    private final Set<String> refusals = ConcurrentHashMap.newKeySet();
    private final AtomicInteger next = new AtomicInteger();
    private final List<Thread> clients = new ArrayList<>();
    private volatile boolean placing = true;
    private volatile long retryUntil = Long.MAX_VALUE;
    private final Duration between;

    /** Starts {@code clients} clients placing orders one after another, each tagged {@code tag-<n>}. */
    OrderLoad(String tag, List<URI> servers, int clients) {
        this(tag, servers, clients, Duration.ZERO);
    }

    /** As above, each client waiting {@code between} after each order: a steady, moderate load. */
    OrderLoad(String tag, List<URI> servers, int clients, Duration between) {
        this.tag = tag;
        this.servers = servers;
        this.between = between;
        for (int c = 0; c < clients; c++) {
            Thread client = new Thread(this::placeOrders, "order-load-" + c);
            client.setDaemon(true);
            client.start();
            this.clients.add(client);
        }
    }

    String tag() {
        return tag;
    }

    private void placeOrders() {
        while (placing) {
            int n = next.getAndIncrement();
            String customer = tag + "-" + n;
            outcomes.put(customer, Outcome.UNKNOWN);
            outcomes.put(customer, place(customer, n));
            if (!between.isZero()) {
                try {
                    Thread.sleep(between.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private Outcome place(String customer, int n) {
        String key = UUID.randomUUID().toString();
        for (int attempt = 0; System.nanoTime() < retryUntil; attempt++) {
            URI server = servers.get(Math.floorMod(n + attempt, servers.size()));
            try {
                HttpResponse<String> response = CLIENT.send(
                        HttpRequest.newBuilder(server.resolve("/api/orders"))
                                .timeout(Duration.ofSeconds(10))
                                .header("Authorization", Http.basic(Http.USER))
                                .header("Content-Type", "application/json")
                                .header("Idempotency-Key", key)
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"customer\":\"" + customer + "\",\"sku\":\"book-1\",\"quantity\":1}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                int status = response.statusCode();
                if (status == 201) {
                    String location = response.headers().firstValue("Location").orElseThrow();
                    orderIds.put(customer, UUID.fromString(location.substring(location.lastIndexOf('/') + 1)));
                    return Outcome.ACCEPTED;
                }
                Matcher placed = PLACED.matcher(response.body());
                if (status == 409 && placed.find()) {
                    // The handler ran again after its claim expired (a server died before recording the answer)
                    // and found the order the key had placed: the outcome is known.
                    orderIds.put(customer, UUID.fromString(placed.group(1)));
                    return Outcome.ACCEPTED;
                }
                if (status >= 400 && status < 500 && status != 409) {
                    refusals.add(status + " " + response.body());
                    return Outcome.REFUSED;
                }
            } catch (java.io.IOException e) {
                // Refused, reset or timed out: the outcome is not known, so the same key goes again.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Outcome.UNKNOWN;
            }
            pause();
        }
        return Outcome.UNKNOWN;
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops placing new orders; orders in flight go on retrying for at most {@code settle}. */
    void stop(Duration settle) throws InterruptedException {
        placing = false;
        retryUntil = System.nanoTime() + settle.toNanos();
        for (Thread client : clients) {
            client.join(settle.toMillis() + 15_000);
        }
    }

    Map<String, Outcome> outcomes() {
        return Map.copyOf(outcomes);
    }

    /** The order ids of the accepted orders, by customer tag. */
    Map<String, UUID> accepted() {
        return Map.copyOf(orderIds);
    }

    long count(Outcome outcome) {
        return outcomes.values().stream().filter(o -> o == outcome).count();
    }

    Set<String> refusals() {
        return Set.copyOf(refusals);
    }

    @Override
    public void close() throws InterruptedException {
        if (placing) {
            stop(Duration.ZERO);
        }
    }
}
