package dev.durability.bench.http;

import dev.durability.bench.load.Commits;
import dev.durability.bench.load.Schedule;
import dev.durability.bench.results.Percentiles;
import java.io.IOException;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Clients of the demo's {@code POST /api/orders} as the demo user, the same order each time, over HTTP/1.1 as most
 * API clients speak it (the JDK client's default HTTP/2 upgrade is not what is measured). A request is sent without
 * an {@code Idempotency-Key} (the filter passes it through), with a fresh key, or with one of 500 keys already
 * answered (a replay). Several modes take turns request by request, so every mode meets the same background.
 */
public final class OrderClients {
    private static final String BODY = "{\"customer\":\"bench\",\"sku\":\"book-1\",\"quantity\":1}";
    private static final int REPLAY_KEYS = 500;
    private static final String USER = "ada";
    private static final String PASSWORD = "ada-demo";

    /** How a request carries its key. */
    public enum Mode {
        NONE,
        FRESH,
        REPLAY
    }

    /** One mode's figures: requests per second over the run, median and p99 latency in ms. */
    public record Figures(double perSecond, double p50, double p99) {}

    /** Each mode's figures, in the order asked, and the answers other than 201 (status or failure: count). */
    public record Outcome(List<Figures> figures, Map<String, Long> errors) {
        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI orders;
    private final String auth =
            "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));

    public OrderClients(URI server) {
        this.orders = server.resolve("/api/orders");
    }

    /** {@code clients} requests in flight (closed loop) for {@code seconds}, the modes taking turns. */
    public Outcome throughput(List<Mode> modes, int clients, int seconds) throws InterruptedException {
        Run run = new Run(modes);
        long end = run.start + seconds * 1_000_000_000L;
        AtomicInteger turn = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread thread = new Thread(() -> {
                while (System.nanoTime() < end) {
                    int m = Math.floorMod(turn.getAndIncrement(), modes.size());
                    long t0 = System.nanoTime();
                    String status = send(run.requestOf(m));
                    run.done(m, System.nanoTime() - t0, status);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return run.outcome();
    }

    /**
     * {@code rate} requests a second on a fixed schedule (open loop) for {@code seconds}, each timed from its
     * scheduled start, so a stall counts against every request it delayed.
     */
    public Outcome latency(List<Mode> modes, int rate, int seconds) throws InterruptedException {
        Run run = new Run(modes);
        long interval = 1_000_000_000L / rate;
        long end = run.start + seconds * 1_000_000_000L;
        AtomicInteger turn = new AtomicInteger();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (long due = run.start; due < end; due += interval) {
            Schedule.sleepUntil(due);
            long scheduled = due;
            int m = Math.floorMod(turn.getAndIncrement(), modes.size());
            sent.add(client.sendAsync(run.requestOf(m), HttpResponse.BodyHandlers.discarding())
                    .handle((response, failure) -> {
                        run.done(m, System.nanoTime() - scheduled, status(response, failure));
                        return null;
                    }));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        return run.outcome();
    }

    /**
     * Orders without a key on schedule, each noted as committed by its order's id (the Location of its 201) when the
     * answer arrived, a little after the commit: the lag is understated by the answer's way back.
     */
    public Commits placeOnSchedule(Schedule schedule) throws InterruptedException {
        Commits commits = new Commits();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (long due = schedule.start(); due < schedule.end(); due += schedule.interval()) {
            Schedule.sleepUntil(due);
            boolean counted = due >= schedule.measured();
            sent.add(client.sendAsync(request(null), HttpResponse.BodyHandlers.discarding())
                    .handle((response, failure) -> {
                        String location = failure == null && response.statusCode() == 201
                                ? response.headers().firstValue("Location").orElse("")
                                : "";
                        if (location.length() < 36) {
                            commits.refused();
                        } else if (counted) {
                            commits.committed(location.substring(location.length() - 36));
                        }
                        return null;
                    }));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        return commits;
    }

    /** The body of a GET on the server, such as its /metrics. */
    public String get(URI uri) throws IOException, InterruptedException {
        return client.send(
                        HttpRequest.newBuilder(uri)
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private HttpRequest request(String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(orders)
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", auth)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.build();
    }

    private String send(HttpRequest request) {
        try {
            return Integer.toString(
                    client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String status(HttpResponse<?> response, Throwable failure) {
        return failure != null
                ? failure.getClass().getSimpleName() + ": " + failure.getMessage()
                : Integer.toString(response.statusCode());
    }

    /** One run's modes, their keys, their latencies and its errors. */
    private final class Run {
        final List<Mode> modes;
        final List<String> replayKeys = new ArrayList<>();
        final AtomicInteger next = new AtomicInteger();
        final List<ConcurrentLinkedQueue<Long>> latencies = new ArrayList<>();
        final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
        final IntFunction<HttpRequest> requests;
        final long start;

        Run(List<Mode> modes) {
            this.modes = modes;
            if (modes.contains(Mode.REPLAY)) {
                // The keys a replay presents: answered once before the run.
                for (int i = 0; i < REPLAY_KEYS; i++) {
                    String key = UUID.randomUUID().toString();
                    send(OrderClients.this.request(key));
                    replayKeys.add(key);
                }
            }
            modes.forEach(m -> latencies.add(new ConcurrentLinkedQueue<>()));
            requests = m -> OrderClients.this.request(
                    switch (modes.get(m)) {
                        case NONE -> null;
                        case FRESH -> UUID.randomUUID().toString();
                        case REPLAY -> replayKeys.get(Math.floorMod(next.getAndIncrement(), REPLAY_KEYS));
                    });
            start = System.nanoTime();
        }

        HttpRequest requestOf(int mode) {
            return requests.apply(mode);
        }

        void done(int mode, long nanos, String status) {
            latencies.get(mode).add(nanos);
            if (!status.equals("201")) {
                errors.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
            }
        }

        Outcome outcome() {
            double elapsed = (System.nanoTime() - start) / 1e9;
            List<Figures> figures = new ArrayList<>();
            for (ConcurrentLinkedQueue<Long> measured : latencies) {
                List<Long> sorted = new ArrayList<>(measured);
                Collections.sort(sorted);
                figures.add(new Figures(
                        sorted.size() / elapsed, Percentiles.at(sorted, 0.50), Percentiles.at(sorted, 0.99)));
            }
            Map<String, Long> counted = new java.util.TreeMap<>();
            errors.forEach((status, count) -> counted.put(status, count.get()));
            return new Outcome(figures, counted);
        }
    }
}
