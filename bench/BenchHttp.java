import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The idempotency filter's cost on the orders API: the same POST without a key (the filter passes it
 * through), with a fresh key each time (claim, run, record), and with keys already answered (replay).
 *
 * <pre>
 * java bench/BenchHttp.java throughput URL USER PASSWORD MODE CLIENTS SECONDS  ->  "req/s p50_ms p99_ms errors"
 * java bench/BenchHttp.java latency    URL USER PASSWORD MODE RATE SECONDS     ->  "req/s p50_ms p99_ms errors"
 * </pre>
 *
 * MODE is none, first or replay, or several joined by '+' (none+first+replay): the requests then take the
 * modes in turn, so every mode meets the same background (the server's garbage collections, the drain,
 * the database's checkpoints), and one line is printed per mode. throughput keeps CLIENTS requests in
 * flight (closed loop); latency sends RATE requests a second on a fixed schedule (open loop) and times
 * each from its scheduled start, so a stall is counted against every request it delayed.
 */
public class BenchHttp {
    private static final String BODY = "{\"customer\":\"bench\",\"sku\":\"book-1\",\"quantity\":1}";
    private static final int REPLAY_KEYS = 500;

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        URI url = URI.create(args[1]);
        String auth = "Basic " + Base64.getEncoder()
                .encodeToString((args[2] + ":" + args[3]).getBytes(StandardCharsets.UTF_8));
        List<String> modes = List.of(args[4].split("\\+"));
        int level = Integer.parseInt(args[5]);
        int seconds = Integer.parseInt(args[6]);
        // HTTP/1.1 as most API clients speak it; the JDK client's default HTTP/2 upgrade is not what is measured.
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        List<String> replayKeys = new ArrayList<>();
        if (modes.contains("replay")) {
            for (int i = 0; i < REPLAY_KEYS; i++) {
                String key = UUID.randomUUID().toString();
                send(client, request(url, auth, key));
                replayKeys.add(key);
            }
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger turn = new AtomicInteger();
        java.util.function.IntFunction<HttpRequest> requests = m -> request(
                url,
                auth,
                switch (modes.get(m)) {
                    case "none" -> null;
                    case "first" -> UUID.randomUUID().toString();
                    case "replay" -> replayKeys.get(Math.floorMod(next.getAndIncrement(), REPLAY_KEYS));
                    default -> throw new IllegalArgumentException("mode none, first or replay, not " + modes.get(m));
                });
        List<ConcurrentLinkedQueue<Long>> latencies = new ArrayList<>();
        modes.forEach(m -> latencies.add(new ConcurrentLinkedQueue<>()));
        java.util.concurrent.ConcurrentHashMap<String, AtomicLong> errors = new java.util.concurrent.ConcurrentHashMap<>();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        if (kind.equals("throughput")) {
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < level; c++) {
                Thread t = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        int m = Math.floorMod(turn.getAndIncrement(), modes.size());
                        long t0 = System.nanoTime();
                        String status = send(client, requests.apply(m));
                        latencies.get(m).add(System.nanoTime() - t0);
                        if (!status.equals("201")) {
                            errors.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
                        }
                    }
                });
                t.start();
                clients.add(t);
            }
            for (Thread t : clients) {
                t.join();
            }
        } else {
            long interval = 1_000_000_000L / level;
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (long due = start; due < end; due += interval) {
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                long scheduled = due;
                int m = Math.floorMod(turn.getAndIncrement(), modes.size());
                sent.add(client.sendAsync(requests.apply(m), HttpResponse.BodyHandlers.discarding())
                        .handle((response, failure) -> {
                            latencies.get(m).add(System.nanoTime() - scheduled);
                            String status = failure != null
                                    ? failure.getClass().getSimpleName() + ": " + failure.getMessage()
                                    : Integer.toString(response.statusCode());
                            if (!status.equals("201")) {
                                errors.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
                            }
                            return null;
                        }));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        long failed = errors.values().stream().mapToLong(AtomicLong::get).sum();
        if (failed > 0) {
            System.err.println("answers other than 201 (status or failure: count): " + errors);
        }
        for (ConcurrentLinkedQueue<Long> measured : latencies) {
            List<Long> sorted = new ArrayList<>(measured);
            Collections.sort(sorted);
            System.out.println(String.format(
                    Locale.ROOT,
                    "%.0f %.2f %.2f %d",
                    sorted.size() / elapsed,
                    sorted.get(sorted.size() / 2) / 1e6,
                    sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * 0.99) - 1)) / 1e6,
                    failed));
        }
    }

    private static HttpRequest request(URI url, String auth, String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url)
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", auth)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.build();
    }

    private static String send(HttpClient client, HttpRequest request) {
        try {
            return Integer.toString(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }
}
