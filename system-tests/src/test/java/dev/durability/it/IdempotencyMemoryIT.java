package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hundreds of keyed requests with maximal bodies at once, against a server on the shipped heap and the library's
 * default buffer budget: the bodies that do not fit the budget are refused before they are read, and the server
 * lives on (docs/decisions/0054-buffer-budget.md). Without the budget these bodies, all held at once, exceed the
 * heap and the JVM ends ({@code -XX:+ExitOnOutOfMemoryError} in the shipped jvm.options).
 *
 * <p>The server's executor runs every one of them at once, as Liberty's default executor comes to when requests
 * block on slow bodies (it adds threads while nothing completes); the test sets it at the start instead of waiting
 * for that growth.
 */
class IdempotencyMemoryIT {
    private static final String SCHEMA = "durability_idempotency_memory";
    private static final int CLIENTS = 600;
    private static final String BUSY = "https://durability.dev/problems/idempotency-busy";

    @Test
    void concurrentMaximalBodiesOnTheShippedHeapAreRefusedOverTheBudgetAndTheServerLives() throws Exception {
        Properties defaults = libraryDefaults();
        int maximal = Integer.parseInt(defaults.getProperty("durability.idempotency.max-request-bytes"));
        long budget = Long.parseLong(defaults.getProperty("durability.idempotency.buffer-budget-bytes"));
        assertThat((long) CLIENTS * maximal)
                .as("the bodies together exceed the shipped heap")
                .isGreaterThan(shippedMaximumHeapBytes());
        OutboxTable.dropSchema(SCHEMA);
        try (LibertyServer server = LibertyServer.copyOfMain(
                "durability-idempotency-memory",
                9199,
                Map.of("DB_SCHEMA", SCHEMA, "DURABILITY_INSTANCE_NAME", "it-idempotency-memory"))) {
            Path executor = server.directory().resolve("configDropins/overrides/executor.xml");
            Files.writeString(
                    executor,
                    "<server><executor coreThreads=\"" + (CLIENTS + 50) + "\" maxThreads=\"" + (CLIENTS + 50)
                            + "\"/></server>\n");
            server.start();
            server.awaitApplicationStarted();

            byte[] body = new byte[maximal];
            Arrays.fill(body, (byte) ' ');
            body[0] = '{'; // not an order: an accepted body gets the handler's 400, and places nothing
            CountDownLatch allSent = new CountDownLatch(CLIENTS);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            List<Future<Outcome>> outcomes = new ArrayList<>();
            try {
                for (int i = 0; i < CLIENTS; i++) {
                    outcomes.add(clients.submit(() -> send(server, body, allSent)));
                }
                List<Outcome> results = new ArrayList<>();
                for (Future<Outcome> outcome : outcomes) {
                    results.add(outcome.get(3, TimeUnit.MINUTES));
                }

                assertThat(server.consoleLog()).as("the server's console").doesNotContain("OutOfMemoryError");
                assertThat(Http.get(server.uri(), "/health/live").statusCode())
                        .as("the server lives on")
                        .isEqualTo(200);
                long handled = results.stream().filter(Outcome::handled).count();
                long answeredBusy = results.stream().filter(Outcome::busy).count();
                double refusedBusy = Http.metric(
                        server.uri(), "durability_idempotency_refused_total", Http.ORDERS_MODULE, "reason=\"busy\"");
                assertThat(handled)
                        .as("bodies read and handled, at most what the budget holds at once")
                        .isBetween(1L, budget / maximal);
                assertThat(results)
                        .as("every request was either handled or refused as busy")
                        .allSatisfy(r -> assertThat(r.handled() || r.busy() || r.cut())
                                .as(r.toString())
                                .isTrue());
                assertThat(refusedBusy)
                        .as(
                                "every request not handled was refused before it was read (%s answered busy); %s",
                                answeredBusy,
                                Http.get(server.uri(), "/metrics")
                                        .body()
                                        .lines()
                                        .filter(line -> line.startsWith("durability_idempotency_refused"))
                                        .toList())
                        .isEqualTo((double) (CLIENTS - handled));
                // Everything given back: a keyed order is taken as before.
                assertThat(Http.postKeyedOrder(
                                        server.uri(), UUID.randomUUID().toString(), "memory-" + UUID.randomUUID())
                                .statusCode())
                        .isEqualTo(201);
            } finally {
                clients.shutdownNow();
            }
        }
    }

    /**
     * What one client saw: the status of its answer (0 if the connection was cut before one could be read), and
     * the answer's body.
     */
    private record Outcome(int status, String body) {
        boolean handled() {
            return status != 0 && status != 503;
        }

        boolean busy() {
            return status == 503 && body.contains(BUSY);
        }

        /** A refused request's connection closed while its body was still being sent: no answer to read. */
        boolean cut() {
            return status == 0;
        }
    }

    /**
     * Sends a keyed request with a maximal body but its last byte, waits until every client has sent as much, then
     * sends the last byte and reads the answer: so every body that the server reads is held at the same time.
     */
    private static Outcome send(LibertyServer server, byte[] body, CountDownLatch allSent) throws Exception {
        try (RawHttp http = new RawHttp(server.uri())) {
            boolean open = true;
            try {
                http.head(
                        "POST /api/orders HTTP/1.1",
                        "Host: localhost",
                        "Authorization: " + Http.basic(Http.USER),
                        "Content-Type: application/json",
                        "Idempotency-Key: " + UUID.randomUUID(),
                        "Content-Length: " + body.length);
                OutputStream out = http.out();
                for (int offset = 0; offset < body.length - 1; offset += 65_536) {
                    out.write(body, offset, Math.min(65_536, body.length - 1 - offset));
                }
                out.flush();
            } catch (IOException refusedAndClosed) {
                open = false;
            } finally {
                allSent.countDown();
            }
            allSent.await(2, TimeUnit.MINUTES);
            try {
                if (open) {
                    http.out().write(body, body.length - 1, 1);
                    http.out().flush();
                }
                String head = http.readHead();
                return new Outcome(RawHttp.status(head), http.readBody(head));
            } catch (IOException closed) {
                return new Outcome(0, closed.toString());
            }
        }
    }

    private static Properties libraryDefaults() {
        try (InputStream in = IdempotencyMemoryIT.class
                .getClassLoader()
                .getResourceAsStream("META-INF/microprofile-config.properties")) {
            Properties properties = new Properties();
            properties.load(in);
            return properties;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The -Xmx of the shipped jvm.options, which the test servers use as they are. */
    private static long shippedMaximumHeapBytes() throws IOException {
        String xmx =
                Files.readAllLines(Path.of(Coordinates.mainServerDir(), "jvm.options"), StandardCharsets.UTF_8).stream()
                        .filter(line -> line.startsWith("-Xmx"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no -Xmx in the shipped jvm.options"))
                        .substring(4)
                        .toLowerCase();
        long unit = xmx.endsWith("g") ? 1L << 30 : xmx.endsWith("m") ? 1L << 20 : 1;
        return Long.parseLong(xmx.replaceAll("[gmk]$", "")) * unit;
    }
}
