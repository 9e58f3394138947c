import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Publish lag at an offered load: events are committed at a fixed rate (open loop) and a consumer on a
 * queue bound to their event type notes when each arrives; the lag is arrival minus commit, both read
 * from this process's monotonic clock.
 *
 * <pre>
 * java -cp amqp-client:slf4j-api:postgresql BenchLag.java HOST PORT sql JDBC_URL USER PASSWORD SCHEMA RATE SECONDS [WARM_UP]
 * java -cp amqp-client:slf4j-api            BenchLag.java HOST PORT api URL USER PASSWORD RATE SECONDS [WARM_UP]
 *   -> "offered_per_s committed arrived p50_ms p95_ms p99_ms"
 * </pre>
 *
 * The load is offered for WARM_UP seconds (default 5) before the SECONDS that are measured, through the same
 * connections and consumer, so that the figures are the steady state's and not this process's own start
 * (its JIT, its connections, the queue just declared): PerfTest's first second here shows consumer latencies
 * of 10 to 25 ms at 500 messages/s that its later seconds do not. The warm-up's events are published and
 * consumed like the others, and not counted.
 *
 * sql: each event is one transaction of one insert into the outbox through four connections, as a
 * service's business transaction would stage it (the insert trigger notifies the drain on commit); its
 * commit time is when the commit returned. api: each event is a {@code POST /api/orders} (the order and its
 * {@code order.placed} in one transaction); its commit time is when the 201 arrived, a little after the
 * commit, so the lag is slightly understated by the response's way back.
 */
public class BenchLag {
    private static final Pattern AGGREGATE = Pattern.compile("\"aggregate_id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

    public static void main(String[] args) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(args[0]);
        factory.setPort(Integer.parseInt(args[1]));
        boolean api = args[2].equals("api");
        int rate = Integer.parseInt(api ? args[6] : args[7]);
        int seconds = Integer.parseInt(api ? args[7] : args[8]);
        int argsBeforeWarmUp = api ? 8 : 9;
        int warmUp = args.length > argsBeforeWarmUp ? Integer.parseInt(args[argsBeforeWarmUp]) : 5;
        String queue = "bench.lag";
        String eventType = api ? "order.placed" : "bench.lag";
        Map<String, Long> committed = new ConcurrentHashMap<>();
        Map<String, Long> arrived = new ConcurrentHashMap<>();
        AtomicLong refused = new AtomicLong();
        try (Connection connection = factory.newConnection("bench lag")) {
            Channel channel = arrivals(connection, queue, eventType, api, arrived);
            Schedule schedule = Schedule.from(System.nanoTime(), rate, warmUp, seconds);
            if (api) {
                offerThroughApi(args, schedule, committed, refused);
            } else {
                offerThroughSql(args[3], args[4], args[5], args[6], eventType, schedule, committed, refused);
            }
            awaitArrivals(committed, arrived);
            channel.queueDelete(queue);
        }
        List<Long> lags = new ArrayList<>();
        committed.forEach((id, at) -> {
            Long arrival = arrived.get(id);
            if (arrival != null) {
                lags.add(Math.max(0, arrival - at));
            }
        });
        Collections.sort(lags);
        if (refused.get() > 0) {
            System.err.println("events not committed (refused or failed): " + refused.get());
        }
        System.out.println(String.format(
                Locale.ROOT,
                "%d %d %d %.2f %.2f %.2f",
                rate,
                committed.size(),
                lags.size(),
                percentile(lags, 0.50),
                percentile(lags, 0.95),
                percentile(lags, 0.99)));
    }

    /**
     * A queue of its own bound to the event type, consumed with automatic acks: each message's arrival
     * (nanoTime) by its envelope id (the message id; through the API, the order's aggregate id in the body).
     */
    static Channel arrivals(Connection connection, String queue, String eventType, boolean api, Map<String, Long> arrived)
            throws java.io.IOException {
        Channel channel = connection.createChannel();
        channel.queueDeclare(queue, true, false, false, null);
        channel.queuePurge(queue);
        channel.queueBind(queue, "durability.events", eventType);
        channel.basicQos(1000);
        channel.basicConsume(queue, true, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                long now = System.nanoTime();
                if (api) {
                    Matcher m = AGGREGATE.matcher(new String(body, StandardCharsets.UTF_8));
                    if (m.find()) {
                        arrived.putIfAbsent(m.group(1), now);
                    }
                } else {
                    arrived.putIfAbsent(properties.getMessageId(), now);
                }
            }
        });
        return channel;
    }

    /** Waits up to a minute for every committed event to arrive. */
    static void awaitArrivals(Map<String, Long> committed, Map<String, Long> arrived) throws InterruptedException {
        long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < wait && !arrived.keySet().containsAll(committed.keySet())) {
            Thread.sleep(100);
        }
    }

    /** When events are due (nanoTime): one every interval from start to end, counted from measured on. */
    private record Schedule(long start, long measured, long interval, long end) {
        static Schedule from(long start, int rate, int warmUpSeconds, int seconds) {
            long measured = start + warmUpSeconds * 1_000_000_000L;
            return new Schedule(start, measured, 1_000_000_000L / rate, measured + seconds * 1_000_000_000L);
        }
    }

    static double percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get((int) Math.min(sorted.size() - 1, Math.max(0, Math.ceil(sorted.size() * p) - 1))) / 1e6;
    }

    private static void sleepUntil(long due) throws InterruptedException {
        long wait = due - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }

    /** Ids as the library makes them (UUIDv7): each lands in its day's partition of the outbox and the inboxes. */
    static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    /** The envelope of a benchmark event: an order line's size, as the demo's order.placed. */
    static String envelope(String id, String aggregate, String eventType) {
        return "{\"id\":\"" + id + "\",\"event_type\":\"" + eventType + "\",\"source_service\":\"bench\","
                + "\"aggregate_id\":\"" + aggregate + "\",\"occurred_at\":\"2026-01-01T00:00:00.000Z\","
                + "\"schema_version\":1,\"correlation_id\":\"" + id + "\",\"causation_id\":null,"
                + "\"payload\":{\"sku\":\"book-1\",\"quantity\":1,\"customer\":\"bench\"}}";
    }

    /**
     * Commits one event of {@code eventType} per transaction on schedule through four connections to the schema's
     * outbox, noting each commit (nanoTime) by envelope id once the schedule is past its warm-up.
     */
    private static void offerThroughSql(
            String jdbcUrl,
            String user,
            String password,
            String schema,
            String eventType,
            Schedule schedule,
            Map<String, Long> committed,
            AtomicLong refused)
            throws Exception {
        // Unqualified, on the schema's search path as a service's own connections are: the insert trigger names
        // the channel it notifies after current_schema().
        String sql = "INSERT INTO event_outbox (id, aggregate_id, event_type, envelope)"
                + " VALUES (CAST(? AS uuid), CAST(? AS uuid), ?, CAST(? AS jsonb))";
        int connections = 4;
        ExecutorService stagers = Executors.newFixedThreadPool(connections);
        ThreadLocal<PreparedStatement> statements = ThreadLocal.withInitial(() -> {
            try {
                java.sql.Connection connection = DriverManager.getConnection(jdbcUrl, user, password);
                try (java.sql.Statement path = connection.createStatement()) {
                    path.execute("SET search_path = " + schema);
                }
                return connection.prepareStatement(sql);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        for (long due = schedule.start(); due < schedule.end(); due += schedule.interval()) {
            sleepUntil(due);
            boolean counted = due >= schedule.measured();
            stagers.execute(() -> {
                String id = IDS.generate().toString();
                String aggregate = UUID.randomUUID().toString();
                String envelope = envelope(id, aggregate, eventType);
                try {
                    PreparedStatement insert = statements.get();
                    insert.setString(1, id);
                    insert.setString(2, aggregate);
                    insert.setString(3, eventType);
                    insert.setString(4, envelope);
                    insert.executeUpdate(); // autocommit: one transaction per event
                    if (counted) {
                        committed.put(id, System.nanoTime());
                    }
                } catch (Exception e) {
                    refused.incrementAndGet();
                }
            });
        }
        stagers.shutdown();
        stagers.awaitTermination(1, TimeUnit.MINUTES);
    }

    private static void offerThroughApi(
            String[] args, Schedule schedule, Map<String, Long> committed, AtomicLong refused) throws Exception {
        URI url = URI.create(args[3]);
        String auth = "Basic " + Base64.getEncoder()
                .encodeToString((args[4] + ":" + args[5]).getBytes(StandardCharsets.UTF_8));
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        List<java.util.concurrent.CompletableFuture<Void>> sent = new ArrayList<>();
        for (long due = schedule.start(); due < schedule.end(); due += schedule.interval()) {
            sleepUntil(due);
            boolean counted = due >= schedule.measured();
            HttpRequest request = HttpRequest.newBuilder(url)
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", auth)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"customer\":\"bench\",\"sku\":\"book-1\",\"quantity\":1}"))
                    .build();
            sent.add(client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                    .handle((response, failure) -> {
                        long now = System.nanoTime();
                        String location = failure == null && response.statusCode() == 201
                                ? response.headers().firstValue("Location").orElse("")
                                : "";
                        if (location.length() < 36) {
                            refused.incrementAndGet();
                        } else if (counted) {
                            committed.put(location.substring(location.length() - 36), now);
                        }
                        return null;
                    }));
        }
        java.util.concurrent.CompletableFuture.allOf(sent.toArray(java.util.concurrent.CompletableFuture[]::new))
                .join();
    }
}
