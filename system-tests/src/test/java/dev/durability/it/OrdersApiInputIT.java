package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the orders API answers to input it cannot take, and to a request whose outcome it cannot know:
 * always a problem (RFC 9457) with a clear detail and the right status, never an exception's text, and
 * "nothing was changed" only when that is true.
 */
class OrdersApiInputIT {
    private static final String JSON = "application/json";
    private static final String PROBLEM = "application/problem+json";
    private static final String PROBLEMS = "https://durability.dev/problems/";
    // What a leaked exception would show: its class, its package, a stack frame, the runtime's message ids.
    private static final List<String> INTERNALS = List.of(
            "Exception", "java.", "jakarta.", "org.", "dev.durability", "at dev.", "RESTEASY", "SRVE", "CWW", "$WSEP");
    private static final int BULK = 10_000;
    private static final Pattern UUID_TEXT =
            Pattern.compile("\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");

    private final URI server = Coordinates.mainServer();
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    static Stream<Arguments> malformedOrders() {
        return Stream.of(
                Arguments.of("empty body", bytes(""), "empty"),
                Arguments.of("unfinished object", bytes("{"), "not valid JSON"),
                Arguments.of("array", bytes("[]"), "must be a JSON object"),
                Arguments.of("quantity 1e400 as a string", order("\"1e400\""), "quantity"),
                Arguments.of("quantity 1e400", order("1e400"), "quantity"),
                Arguments.of("quantity over the int range", order("4294967297"), "quantity"),
                Arguments.of("quantity as a string", order("\"1\""), "quantity"),
                Arguments.of("fractional quantity", order("1.5"), "quantity"),
                Arguments.of("quantity of 2000 digits", order("1" + "0".repeat(2000)), "number"),
                Arguments.of("customer as a number", withId("\"customer\":1,\"sku\":\"b\",\"quantity\":1"), "customer"),
                Arguments.of("sku missing", withId("\"customer\":\"a\",\"quantity\":1"), "sku"),
                Arguments.of(
                        "id not a UUID",
                        bytes("{\"id\":\"1-2-3-4-5\",\"customer\":\"a\",\"sku\":\"b\",\"quantity\":1}"),
                        "id"),
                Arguments.of(
                        "key twice",
                        withId("\"customer\":\"a\",\"sku\":\"b\",\"quantity\":1,\"quantity\":2"),
                        "quantity"),
                Arguments.of(
                        "text after the object",
                        withId("\"customer\":\"a\",\"sku\":\"b\",\"quantity\":1} {"),
                        "not valid JSON"),
                Arguments.of(
                        "NUL in customer",
                        withId("\"customer\":\"a\\u0000\",\"sku\":\"b\",\"quantity\":1"),
                        "customer"),
                Arguments.of("invalid UTF-8", invalidUtf8(UUID.randomUUID()), "UTF-8"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedOrders")
    void malformedOrderIsA400ProblemNamingTheProblemAndStagesNothing(String name, byte[] body, String named)
            throws Exception {
        HttpResponse<String> response = Http.postBytes(server, "/api/orders", JSON, body);

        JsonObject problem = problem(response, 400);
        assertThat(problem.getString("type")).isIn(PROBLEMS + "malformed-request", PROBLEMS + "invalid-order");
        assertThat(problem.getString("detail")).contains(named);
        // Every case that carries an id would stage under it had it been taken.
        for (String id : idsIn(body)) {
            assertThat(outbox.rowsOfAggregate(UUID.fromString(id))).isEmpty();
        }
    }

    @Test
    void bodyOverTheLimitIsA413Problem() {
        String customer = "a".repeat(70 * 1024);
        HttpResponse<String> response = Http.postBytes(
                server, "/api/orders", JSON, bytes("{\"customer\":\"" + customer + "\",\"sku\":\"b\",\"quantity\":1}"));

        assertThat(problem(response, 413).getString("type")).isEqualTo(PROBLEMS + "body-too-large");
    }

    @Test
    void wrongContentTypeIsA415Problem() {
        HttpResponse<String> response =
                Http.postBytes(server, "/api/orders", "text/plain", order(UUID.randomUUID(), "1"));

        assertThat(problem(response, 415).getString("type")).isEqualTo(PROBLEMS + "unsupported-media-type");
    }

    @Test
    void malformedUuidInThePathIsA404Problem() {
        HttpResponse<String> response = Http.get(server, "/api/orders/not-a-uuid");

        assertThat(problem(response, 404).getString("type")).isEqualTo(PROBLEMS + "not-found");
    }

    @Test
    void unknownPathIsA404Problem() {
        HttpResponse<String> response = Http.get(server, "/api/no-such-thing");

        assertThat(problem(response, 404).getString("type")).isEqualTo(PROBLEMS + "not-found");
    }

    @Test
    void unknownOrderIsA404ProblemOfItsOwnType() {
        UUID id = UUID.randomUUID();
        HttpResponse<String> response = Http.get(server, "/api/orders/" + id);

        JsonObject problem = problem(response, 404);
        assertThat(problem.getString("type")).isEqualTo(PROBLEMS + "order-not-found");
        assertThat(problem.getString("detail")).contains(id.toString());
    }

    /**
     * An order belongs to the caller who placed it, whatever {@code customer} the body names: another caller
     * reading it finds nothing, as for an order that does not exist, so ids reveal nothing.
     */
    @Test
    void anOrderIsReadBackOnlyByTheCallerWhoPlacedIt() {
        UUID id = UUID.randomUUID();
        String body = "{\"id\":\"" + id + "\",\"customer\":\"" + Http.OTHER_USER + "\",\"sku\":\"s\",\"quantity\":1}";
        assertThat(Http.postJson(server, "/api/orders", body).statusCode()).isEqualTo(201);

        HttpResponse<String> other = Http.send(HttpRequest.newBuilder(server.resolve("/api/orders/" + id))
                .header("Authorization", Http.basic(Http.OTHER_USER))
                .GET()
                .build());
        JsonObject refused = problem(other, 404);
        assertThat(refused.getString("type")).isEqualTo(PROBLEMS + "order-not-found");
        assertThat(other.body()).doesNotContain("\"sku\"");

        JsonObject own = Http.json(Http.get(server, "/api/orders/" + id));
        assertThat(own.getString("id")).isEqualTo(id.toString());
        assertThat(own.getString("customer")).isEqualTo(Http.OTHER_USER);
    }

    @Test
    void duplicateClientIdIsA409ThatChangedNothing() throws Exception {
        UUID id = UUID.randomUUID();
        assertThat(Http.postBytes(server, "/api/orders", JSON, order(id, "1")).statusCode())
                .isEqualTo(201);

        HttpResponse<String> again = Http.postBytes(server, "/api/orders", JSON, order(id, "2"));

        JsonObject problem = problem(again, 409);
        assertThat(problem.getString("type")).isEqualTo(PROBLEMS + "order-exists");
        assertThat(problem.getString("detail")).contains(id.toString(), "nothing was changed");
        assertThat(outbox.rowsOfAggregate(id)).hasSize(1);
        assertThat(Http.json(Http.get(server, "/api/orders/" + id)).getInt("quantity"))
                .isEqualTo(1);
    }

    /**
     * The database connection dies while the order's insert waits for a lock: the server cannot know the
     * outcome from its side, so it must not claim that nothing changed. A retry with the same id is safe.
     */
    @Test
    void failureOfTheTransactionIsA503OutcomeUnknownAndARetryWithTheSameIdIsSafe() throws Exception {
        UUID id = UUID.randomUUID();
        HttpResponse<String> response;
        try (Connection lock = OutboxTable.connect()) {
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                s.execute("LOCK TABLE " + Coordinates.mainSchema() + ".demo_orders IN ACCESS EXCLUSIVE MODE");
            }
            CompletableFuture<HttpResponse<String>> placing =
                    CompletableFuture.supplyAsync(() -> Http.postBytes(server, "/api/orders", JSON, order(id, "1")));
            await().atMost(Duration.ofSeconds(15)).until(() -> endSessionsWaitingFor(lock, "demo_orders") > 0);
            response = placing.get(60, TimeUnit.SECONDS);
            lock.rollback();
        }

        JsonObject problem = problem(response, 503);
        assertThat(problem.getString("type")).isEqualTo(PROBLEMS + "outcome-unknown");
        assertThat(problem.getString("order_id")).isEqualTo(id.toString());
        assertThat(problem.getString("detail"))
                .contains("may or may not", "GET /api/orders/" + id)
                .doesNotContain("nothing was changed");
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(Files.readString(Path.of(Coordinates.mainServerDir(), "logs", "messages.log")))
                                .contains(problem.getString("error_id")));

        HttpResponse<String> retry = Http.postBytes(server, "/api/orders", JSON, order(id, "1"));
        assertThat(retry.statusCode()).isIn(201, 409);
        assertThat(Http.get(server, "/api/orders/" + id).statusCode()).isEqualTo(200);
        assertThat(outbox.rowsOfAggregate(id)).hasSize(1);
    }

    @Test
    void bulkOf10000OrdersIsPlacedInOneRequestAndEveryEventArrives() throws Exception {
        double recoveriesBefore = Http.metric(server, "durability_outbox_lease_recoveries_total");
        try (EventQueue queue = new EventQueue("order.placed")) {
            List<UUID> ids = new ArrayList<>(BULK);
            JsonArrayBuilder orders = Json.createArrayBuilder();
            for (int i = 0; i < BULK; i++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                orders.add(Json.createObjectBuilder()
                        .add("id", id.toString())
                        .add("customer", "bulk-" + i)
                        .add("sku", "bulk")
                        .add("quantity", 1 + i % 1000));
            }

            HttpResponse<String> response = Http.postBytes(
                    server, "/api/orders/bulk", JSON, bytes(orders.build().toString()));

            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            JsonArray placed = Http.json(response).getJsonArray("orders");
            assertThat(placed.stream()
                            .map(o -> o.asJsonObject().getString("id"))
                            .toList())
                    .as("in request order")
                    .isEqualTo(ids.stream().map(UUID::toString).toList());
            Set<String> eventIds = placed.stream()
                    .map(o -> o.asJsonObject().getString("event_id"))
                    .collect(Collectors.toSet());
            assertThat(eventIds).hasSize(BULK);
            // IN (SELECT unnest(...)) is a hashed semi-join; "= ANY (array)" compared every row with all 10,000
            // ids, 80 s of this test.
            assertThat(outbox.count("aggregate_id IN (SELECT unnest(CAST(? AS uuid[])))", uuidArray(ids)))
                    .isEqualTo(BULK);

            // Generous for a loaded CI machine: a bound on loss, not a speed test.
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> received(queue, eventIds).stream()
                                    .map(EventQueue.Message::id)
                                    .distinct()
                                    .count()
                            == BULK);
            Thread.sleep(2_000); // time for a duplicate to show up, were there one
            List<EventQueue.Message> messages = received(queue, eventIds);
            assertThat(messages.stream().map(EventQueue.Message::aggregateId).collect(Collectors.toSet()))
                    .isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
            if (messages.size() > BULK) {
                // At least once: a duplicate is allowed only when a claim's lease expired and was taken over.
                assertThat(Http.metric(server, "durability_outbox_lease_recoveries_total"))
                        .as("duplicates without a lease recovery")
                        .isGreaterThan(recoveriesBefore);
            }
        }
    }

    @Test
    void bulkWithOneInvalidOrderIsA400NamingItsIndexAndPlacesNone() throws Exception {
        List<UUID> ids = new ArrayList<>();
        JsonArrayBuilder orders = Json.createArrayBuilder();
        for (int i = 0; i < 20; i++) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            orders.add(Json.createObjectBuilder()
                    .add("id", id.toString())
                    .add("customer", "ada")
                    .add("sku", "b")
                    .add("quantity", i == 17 ? 0 : 1));
        }

        HttpResponse<String> response = Http.postBytes(
                server, "/api/orders/bulk", JSON, bytes(orders.build().toString()));

        JsonObject problem = problem(response, 400);
        assertThat(problem.getString("type")).isEqualTo(PROBLEMS + "invalid-order");
        assertThat(problem.getString("detail")).contains("orders[17].quantity");
        assertThat(outbox.count("aggregate_id IN (SELECT unnest(CAST(? AS uuid[])))", uuidArray(ids)))
                .isZero();
        assertThat(Http.get(server, "/api/orders/" + ids.get(0)).statusCode()).isEqualTo(404);
    }

    @Test
    void bulkWithAnItemOfTheWrongTypeIsA400NamingItsIndex() {
        String body = "[{\"customer\":\"ada\",\"sku\":\"b\",\"quantity\":1},{\"customer\":\"ada\",\"sku\":\"b\","
                + "\"quantity\":\"2\"}]";

        HttpResponse<String> response = Http.postBytes(server, "/api/orders/bulk", JSON, bytes(body));

        assertThat(problem(response, 400).getString("detail")).contains("orders[1].quantity");
    }

    @Test
    void bulkOfMoreThan10000OrdersIsA400() {
        JsonArrayBuilder orders = Json.createArrayBuilder();
        for (int i = 0; i <= BULK; i++) {
            orders.add(Json.createObjectBuilder()
                    .add("customer", "a")
                    .add("sku", "b")
                    .add("quantity", 1));
        }

        HttpResponse<String> response = Http.postBytes(
                server, "/api/orders/bulk", JSON, bytes(orders.build().toString()));

        assertThat(problem(response, 400).getString("detail")).contains(String.valueOf(BULK));
    }

    /** Asserts a problem answer of this status that shows nothing of the server's insides, and returns it. */
    private static JsonObject problem(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(PROBLEM);
        response.headers()
                .map()
                .forEach((header, values) -> values.forEach(value ->
                        assertThat(header + ": " + value).as("response header").doesNotContain(INTERNALS)));
        assertThat(response.body()).doesNotContain(INTERNALS);
        JsonObject problem = Http.json(response);
        assertThat(problem.getString("type")).startsWith(PROBLEMS);
        assertThat(problem.getString("title")).isNotBlank();
        assertThat(problem.getInt("status")).isEqualTo(status);
        assertThat(problem.getString("detail")).isNotBlank();
        return problem;
    }

    /** Ends the sessions waiting for a lock on this table, which {@code holder} holds; returns how many. */
    private static int endSessionsWaitingFor(Connection holder, String table) throws Exception {
        try (PreparedStatement s = holder.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_locks "
                + "WHERE relation = CAST(CAST(? AS text) AS regclass) AND NOT granted AND pid <> pg_backend_pid()")) {
            s.setString(1, Coordinates.mainSchema() + "." + table);
            int ended = 0;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ended++;
                }
            }
            return ended;
        }
    }

    private static List<EventQueue.Message> received(EventQueue queue, Set<String> eventIds) {
        return queue.messages().stream().filter(m -> eventIds.contains(m.id())).toList();
    }

    private static String uuidArray(List<UUID> ids) {
        return ids.stream().map(UUID::toString).collect(Collectors.joining(",", "{", "}"));
    }

    private static Set<String> idsIn(byte[] body) {
        Set<String> ids = new HashSet<>();
        Matcher m = UUID_TEXT.matcher(new String(body, StandardCharsets.ISO_8859_1));
        while (m.find()) {
            ids.add(m.group());
        }
        return ids;
    }

    /** An object of a fresh id and these members. */
    private static byte[] withId(String members) {
        return bytes("{\"id\":\"" + UUID.randomUUID() + "\"," + members + "}");
    }

    private static byte[] order(String quantity) {
        return order(UUID.randomUUID(), quantity);
    }

    private static byte[] order(UUID id, String quantity) {
        return bytes("{\"id\":\"" + id + "\",\"customer\":\"ada\",\"sku\":\"b\",\"quantity\":" + quantity + "}");
    }

    /** An order whose customer holds the bytes FF FE, which no UTF-8 text contains. */
    private static byte[] invalidUtf8(UUID id) {
        byte[] head = bytes("{\"id\":\"" + id + "\",\"customer\":\"");
        byte[] tail = bytes("\",\"sku\":\"b\",\"quantity\":1}");
        byte[] body = new byte[head.length + 2 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xFF;
        body[head.length + 1] = (byte) 0xFE;
        System.arraycopy(tail, 0, body, head.length + 2, tail.length);
        return body;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
