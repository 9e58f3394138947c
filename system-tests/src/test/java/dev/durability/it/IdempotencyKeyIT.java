package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The orders API behind the idempotency filter, over HTTP as its clients call it: a retry with the same
 * {@code Idempotency-Key} gets the first answer back and never places a second order.
 */
class IdempotencyKeyIT {
    private static final String PROBLEMS = "https://durability.dev/problems/";
    private final URI server = Coordinates.mainServer();
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());

    @Test
    void aRetryWithTheSameKeyAndBodyIsAnsweredWithTheFirstAnswerAndPlacesNoSecondOrder() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        String body = order(customer);

        HttpResponse<String> first = post("/api/orders", key, body, Http.USER);
        HttpResponse<String> retry = post("/api/orders", key, body, Http.USER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue(IDEMPOTENT_REPLAYED)).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("Content-Type"))
                .isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(retry.headers().firstValue(IDEMPOTENT_REPLAYED)).contains("true");
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);
    }

    @Test
    void aRetryAfterAnAnswerWasLostOnceTheOrderCommittedAnswersThatOrdersCreatedAndPlacesNoSecond() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/api/orders", key, order(customer), Http.USER);
        assertThat(first.statusCode()).isEqualTo(201);
        String orderId = Http.json(first).getString("id");
        // As the record would stand had the order committed on its own (a handler that does not join the filter's
        // transaction) and the server died before the answer was recorded, once the claim lapsed: processing,
        // nothing recorded.
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("UPDATE " + Coordinates.mainSchema()
                        + ".idempotency_responses SET state = 'processing', finalized_at = NULL, response_status ="
                        + " NULL, response_headers = NULL, response_body = NULL, body_omitted = false,"
                        + " claim_expires_at = now() - interval '1 second' WHERE path = '/api/orders'"
                        + " AND claimed_at >= now() - interval '1 minute' AND state = 'succeeded'"
                        + " AND response_headers::text LIKE '%' || ? || '%'")) {
            s.setString(1, orderId);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }

        HttpResponse<String> retry = post("/api/orders", "\"" + key + "\"", order(customer), Http.USER);

        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(201);
        assertThat(retry.body())
                .as("the first answer: the order's id and its event's")
                .isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);

        HttpResponse<String> otherBody =
                post("/api/orders", key, order(customer).replace("\"quantity\":2", "\"quantity\":3"), Http.USER);
        assertThat(otherBody.statusCode())
                .as("the key now names the recorded request")
                .isEqualTo(422);
    }

    @Test
    void theQuotedAndTheBareFormOfAKeyAreOneKey() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();

        HttpResponse<String> bare = post("/api/orders", key, order(customer), Http.USER);
        HttpResponse<String> quoted = post("/api/orders", "\"" + key + "\"", order(customer), Http.USER);

        assertThat(bare.statusCode()).isEqualTo(201);
        assertThat(quoted.headers().firstValue(IDEMPOTENT_REPLAYED)).contains("true");
        assertThat(quoted.body()).isEqualTo(bare.body());
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);
    }

    @Test
    void fiftyConcurrentRequestsWithOneKeyPlaceExactlyOneOrderAndNoneFails() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        String body = order(customer);
        ExecutorService pool = Executors.newFixedThreadPool(50);
        List<HttpResponse<String>> responses = new ArrayList<>();
        try {
            List<Future<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                sent.add(pool.submit(() -> post("/api/orders", key, body, Http.USER)));
            }
            for (Future<HttpResponse<String>> response : sent) {
                responses.add(response.get());
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(responses)
                .allSatisfy(response ->
                        assertThat(response.statusCode()).as(response.body()).isIn(201, 409));
        List<HttpResponse<String>> created =
                responses.stream().filter(r -> r.statusCode() == 201).toList();
        assertThat(created).isNotEmpty();
        assertThat(created.stream()
                        .filter(r -> r.headers().firstValue(IDEMPOTENT_REPLAYED).isEmpty()))
                .as("exactly one request ran the handler")
                .hasSize(1);
        assertThat(created.stream().map(HttpResponse::body).distinct()).hasSize(1);
        assertThat(responses.stream().filter(r -> r.statusCode() == 409)).allSatisfy(conflict -> {
            assertThat(conflict.headers().firstValue("Retry-After"))
                    .hasValueSatisfying(
                            seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
            assertThat(Http.json(conflict).getString("type")).isEqualTo(PROBLEMS + "idempotency-request-in-progress");
        });
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIsRefusedWith422OfItsOwnTypeAndChangesNothing() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/api/orders", key, order(customer), Http.USER);

        HttpResponse<String> reused =
                post("/api/orders", key, order(customer).replace("\"quantity\":2", "\"quantity\":3"), Http.USER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(Http.json(reused).getString("type")).isEqualTo(PROBLEMS + "idempotency-key-reused");
        assertThat(Http.json(reused).getString("policy")).isNotBlank();
        assertThat(reused.headers().firstValue("Link"))
                .hasValueSatisfying(link -> assertThat(link).contains("rel=\"help\""));
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);
    }

    @Test
    void aRefusedRequestFixedAndRetriedWithItsKeyRunsAndIsThenRemembered() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        String broken = order(customer).replace("\"quantity\":2", "\"quantity\":0");

        HttpResponse<String> refused = post("/api/orders", key, broken, Http.USER);
        HttpResponse<String> fixed = post("/api/orders", key, order(customer), Http.USER);
        HttpResponse<String> brokenAgain = post("/api/orders", key, broken, Http.USER);

        assertThat(refused.statusCode()).isBetween(400, 499);
        assertThat(Http.json(refused).getString("type")).doesNotStartWith(PROBLEMS + "idempotency-");
        assertThat(fixed.statusCode()).as(fixed.body()).isEqualTo(201);
        assertThat(fixed.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(brokenAgain.statusCode())
                .as("once it succeeded, the key names the fixed request")
                .isEqualTo(422);
        assertThat(Http.json(brokenAgain).getString("type")).isEqualTo(PROBLEMS + "idempotency-key-reused");
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);
    }

    @Test
    void theSameKeyOnAnotherQueryStringOrFromAnotherUserIsAnotherRequest() throws Exception {
        String customer = customer();
        String key = UUID.randomUUID().toString();
        String body = order(customer);

        HttpResponse<String> plain = post("/api/orders", key, body, Http.USER);
        HttpResponse<String> query = post("/api/orders?source=retry", key, body, Http.USER);
        HttpResponse<String> reordered = post("/api/orders?b=2&a=1", key, body, Http.USER);
        HttpResponse<String> otherOrder = post("/api/orders?a=1&b=2", key, body, Http.USER);
        HttpResponse<String> otherUser = post("/api/orders", key, body, Http.OTHER_USER);

        for (HttpResponse<String> response : List.of(plain, query, reordered, otherOrder, otherUser)) {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            assertThat(response.headers().firstValue(IDEMPOTENT_REPLAYED)).isEmpty();
        }
        assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(5);
    }

    @Test
    void invalidKeysAreRefusedWith400BeforeAnythingRuns() throws Exception {
        String customer = customer();
        List<String> invalid = List.of(
                "\"\"",
                "k".repeat(256),
                "\"" + "k".repeat(256) + "\"",
                "\"unterminated",
                "\"ab\"cd\"",
                "\"ab\" trailing",
                "\"bad\\escape\"",
                "has\"quote",
                "a,b");
        for (String key : invalid) {
            HttpResponse<String> response = post("/api/orders", key, order(customer), Http.USER);
            assertThat(response.statusCode()).as(key).isEqualTo(400);
            assertThat(Http.json(response).getString("type")).as(key).isEqualTo(PROBLEMS + "idempotency-key-invalid");
        }
        // What a client library would not send: raw bytes on a socket.
        for (String key : List.of("ab\tcd", "\"ab\tcd\"", "caf\u00e9", "\"\u00fcber\"")) {
            String answer = rawPost("/api/orders", key, order(customer));
            assertThat(RawHttp.status(answer)).as(key).isEqualTo(400);
            assertThat(answer).as(key).contains(PROBLEMS + "idempotency-key-invalid");
        }
        HttpResponse<String> twice = Http.send(HttpRequest.newBuilder(server.resolve("/api/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString(order(customer)))
                .build());
        assertThat(twice.statusCode()).isEqualTo(400);
        HttpResponse<String> longest = post("/api/orders", "k".repeat(255), order(customer), Http.USER);
        assertThat(longest.statusCode()).isEqualTo(201);
        assertThat(tables.count("demo_orders", "customer = ?", customer))
                .as("only the request with a valid key ran")
                .isEqualTo(1);
    }

    @Test
    void aKeyedBodyOverTwoMebibytesStreamedSlowlyIsRefusedWith413BeforeTheServerReadsItAll() throws Exception {
        long total = 3L * 1024 * 1024;
        AtomicLong sent = new AtomicLong();
        try (RawHttp http = new RawHttp(server)) {
            http.head(
                    "POST /api/orders HTTP/1.1",
                    "Host: localhost",
                    "Authorization: " + Http.basic(Http.USER),
                    "Content-Type: application/json",
                    "Idempotency-Key: " + UUID.randomUUID(),
                    "Transfer-Encoding: chunked");
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                byte[] chunk = " ".repeat(32 * 1024).getBytes(StandardCharsets.US_ASCII);
                try {
                    OutputStream out = http.out();
                    // Stops once the answer arrives: data sent after the server closed would reset the
                    // connection and could discard the answer before it is read.
                    while (sent.get() < total && http.in().available() == 0) {
                        out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(chunk);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        sent.addAndGet(chunk.length);
                        Thread.sleep(20);
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // the server closed the connection after refusing: what it should do
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            String head = http.readHead();
            long sentWhenAnswered = sent.get();
            String body = http.readBody(head);

            assertThat(RawHttp.status(head)).isEqualTo(413);
            assertThat(head).containsIgnoringCase("Content-Type: application/problem+json");
            assertThat(Json.createReader(new StringReader(body)).readObject().getString("type"))
                    .isEqualTo(PROBLEMS + "idempotency-request-too-large");
            assertThat(sentWhenAnswered).as("bytes sent when the 413 arrived").isLessThan(total);
            writer.cancel(true);
        }
    }

    @Test
    void aKeyedBodyDeclaredOverTheCapIsRefusedWithoutReadingIt() throws Exception {
        try (RawHttp http = new RawHttp(server)) {
            http.head(
                    "POST /api/orders HTTP/1.1",
                    "Host: localhost",
                    "Authorization: " + Http.basic(Http.USER),
                    "Content-Type: application/json",
                    "Idempotency-Key: " + UUID.randomUUID(),
                    "Content-Length: " + (2 * 1024 * 1024 + 1));
            String head = http.readHead();

            assertThat(RawHttp.status(head)).isEqualTo(413);
            assertThat(head).containsIgnoringCase("Connection: close");
        }
    }

    @Test
    void aCallerWithoutValidCredentialsIsRefusedByAuthentication() {
        HttpResponse<String> refused = Http.send(HttpRequest.newBuilder(server.resolve("/api/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("ada:wrong".getBytes()))
                .POST(HttpRequest.BodyPublishers.ofString(order(customer())))
                .build());

        assertThat(refused.statusCode()).isEqualTo(401);
    }

    @Test
    void theFiltersSignalsCountClaimsReplaysConflictsAndMismatches() throws Exception {
        Map<String, Double> before = idempotencyMetrics();
        String customer = customer();
        String key = UUID.randomUUID().toString();
        post("/api/orders", key, order(customer), Http.USER);
        post("/api/orders", key, order(customer), Http.USER);
        post("/api/orders", key, order(customer).replace("\"quantity\":2", "\"quantity\":9"), Http.USER);
        post("/api/orders", "\"open", order(customer), Http.USER);

        Map<String, Double> after = idempotencyMetrics();
        assertThat(after.get("durability_idempotency_claims_total") - before.get("durability_idempotency_claims_total"))
                .isEqualTo(1.0);
        assertThat(after.get("durability_idempotency_replays_total")
                        - before.get("durability_idempotency_replays_total"))
                .isEqualTo(1.0);
        assertThat(after.get("durability_idempotency_mismatches_total")
                        - before.get("durability_idempotency_mismatches_total"))
                .isEqualTo(1.0);
        assertThat(after.get("invalid_key") - before.get("invalid_key")).isEqualTo(1.0);
    }

    static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";

    private Map<String, Double> idempotencyMetrics() {
        return Map.of(
                "durability_idempotency_claims_total",
                        Http.metric(server, "durability_idempotency_claims_total", Http.ORDERS_MODULE),
                "durability_idempotency_replays_total",
                        Http.metric(server, "durability_idempotency_replays_total", Http.ORDERS_MODULE),
                "durability_idempotency_mismatches_total",
                        Http.metric(server, "durability_idempotency_mismatches_total", Http.ORDERS_MODULE),
                "invalid_key",
                        Http.metric(
                                server,
                                "durability_idempotency_refused_total",
                                Http.ORDERS_MODULE,
                                "reason=\"invalid_key\""));
    }

    private HttpResponse<String> post(String path, String key, String body, String user) {
        return Http.send(HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Authorization", Http.basic(user))
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private String rawPost(String path, String key, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (RawHttp http = new RawHttp(server)) {
            http.head(
                    "POST " + path + " HTTP/1.1",
                    "Host: localhost",
                    "Connection: close",
                    "Authorization: " + Http.basic(Http.USER),
                    "Content-Type: application/json",
                    "Content-Length: " + bytes.length,
                    "Idempotency-Key: " + key);
            http.out().write(bytes);
            http.out().flush();
            return new String(http.in().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String customer() {
        return "idem-" + UUID.randomUUID();
    }

    private static String order(String customer) {
        return "{\"customer\":\"" + customer + "\",\"sku\":\"book-1\",\"quantity\":2}";
    }
}
