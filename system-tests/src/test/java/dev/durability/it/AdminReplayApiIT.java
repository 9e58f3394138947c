package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import dev.durability.it.AdminTables.State;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /admin/events/replay} on the deployed EAR, called as scripts call it: with a bearer token the
 * server's MicroProfile JWT configuration checks. Each test seeds outbox rows in a minute of its own, some
 * days back, where nothing else creates rows, so its counts are exact.
 */
class AdminReplayApiIT {
    private static final String ORDERS_QUEUE_LABEL = "queue=\"orders.shipments\"";
    private final URI server = Coordinates.mainServer();
    /** The admin API answers on the HTTPS port only; the orders API and the metrics on the plain one. */
    private final URI admin = Coordinates.mainServerHttps();

    private final AdminTables tables = new AdminTables(Coordinates.mainSchema());
    private final String user = "replay-it-" + UUID.randomUUID();
    private final String prefix = "r" + UUID.randomUUID().toString().substring(0, 8);
    private final OffsetDateTime windowStart = OffsetDateTime.now(ZoneOffset.UTC)
            .minusDays(ThreadLocalRandom.current().nextInt(5, 25))
            .minusSeconds(ThreadLocalRandom.current().nextInt(86_400))
            .truncatedTo(ChronoUnit.SECONDS);
    private final OffsetDateTime windowEnd = windowStart.plusMinutes(1);

    private final AdminReplays replays = new AdminReplays(admin, user);

    @AfterEach
    void removeBackedOffRows() throws Exception {
        tables.removeBackedOffRows();
    }

    @Test
    void aDryRunCountsTheWindowAndARealRunRestagesItsPublishedAndUnroutableRows() throws Exception {
        String alpha = prefix + ".alpha";
        String beta = prefix + ".beta";
        EventEnvelope published1 = envelope(alpha);
        EventEnvelope published2 = envelope(alpha);
        EventEnvelope unroutable = envelope(alpha);
        EventEnvelope pending = envelope(alpha);
        EventEnvelope otherType = envelope(beta);
        EventEnvelope outside = envelope(alpha);
        tables.seedOutbox(published1, windowStart, State.PUBLISHED);
        tables.seedOutbox(published2, windowStart.plusSeconds(30), State.PUBLISHED);
        tables.seedOutbox(unroutable, windowStart.plusSeconds(59), State.UNROUTABLE);
        tables.seedOutbox(pending, windowStart.plusSeconds(1), State.BACKED_OFF);
        tables.seedOutbox(otherType, windowStart.plusSeconds(2), State.PUBLISHED);
        tables.seedOutbox(outside, windowEnd, State.PUBLISHED); // [from, to): the end is outside

        try (EventQueue queue = new EventQueue(prefix + ".#")) {
            JsonObject allTypes = ok(replay(AdminTokens.admin(user), window(Map.of("dry_run", "true"))));
            assertThat(allTypes.getInt("matched")).isEqualTo(5);
            assertThat(allTypes.getInt("restageable")).isEqualTo(4);
            assertThat(allTypes.getInt("pending")).isEqualTo(1);
            assertThat(allTypes.getInt("restaged")).isZero();
            assertThat(OffsetDateTime.parse(allTypes.getString("from"))).isEqualTo(windowStart);
            assertThat(allTypes.isNull("event_type")).isTrue();
            assertThat(allTypes.getBoolean("dry_run")).isTrue();
            assertThat(tables.outbox(published1.id()).publication()).isZero();

            JsonObject oneType =
                    ok(replay(AdminTokens.admin(user), window(Map.of("dry_run", "true", "event_type", alpha))));
            assertThat(oneType.getInt("matched")).isEqualTo(4);
            assertThat(oneType.getInt("restageable")).isEqualTo(3);
            assertThat(oneType.getString("event_type")).isEqualTo(alpha);

            HttpResponse<String> accepted = replay(AdminTokens.admin(user), window(Map.of("event_type", alpha)));
            URI job = AdminReplays.started(accepted);
            assertThat(Http.json(accepted).getString("state")).isIn("running", "done");
            JsonObject real = replays.awaitEnd(job, Duration.ofSeconds(30));
            assertThat(real.getString("state")).isEqualTo("done");
            assertThat(real.getInt("matched")).isEqualTo(4);
            assertThat(real.getInt("restaged")).isEqualTo(3);
            assertThat(real.getInt("pending")).isEqualTo(1);
            assertThat(real.getString("event_type")).isEqualTo(alpha);
            assertThat(real.getString("started_by")).isEqualTo(user);
            assertThat(OffsetDateTime.parse(real.getString("from"))).isEqualTo(windowStart);

            queue.awaitArrivalOf(List.of(published1, published2, unroutable), Duration.ofSeconds(30));
            for (EventEnvelope replayed : List.of(published1, published2, unroutable)) {
                assertThat(queue.messages().stream()
                                .filter(m -> m.id().equals(replayed.id().toString()))
                                .map(m -> m.properties().getHeaders().get("x-durability-publication"))
                                .toList())
                        .containsExactly(1);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> tables.outbox(replayed.id()).publishedAt() != null);
                assertThat(tables.outbox(replayed.id()).unroutableAt()).isNull();
            }
            // The pending row was left to its backoff (a replay never clears a claim or a retry plan); the
            // other type and the row at the window's end were not touched.
            assertThat(tables.outbox(pending.id()).publication()).isZero();
            assertThat(tables.outbox(pending.id()).attempts()).isEqualTo(1);
            assertThat(tables.outbox(otherType.id()).publication()).isZero();
            assertThat(tables.outbox(outside.id()).publication()).isZero();
            assertThat(queue.messages().stream().map(EventQueue.Message::id).toList())
                    .doesNotContain(
                            pending.id().toString(),
                            otherType.id().toString(),
                            outside.id().toString());
        }

        // The job's start and its end, with its counts.
        List<AdminTables.AuditRow> audit = tables.auditOf(user);
        assertThat(audit)
                .extracting(row -> row.action() + " " + row.outcome())
                .containsExactly("replay-preview done", "replay-preview done", "replay started", "replay done");
        assertThat(audit).allSatisfy(row -> assertThat(row.channel()).isEqualTo("bearer"));
        assertThat(audit.get(2).details()).contains("\"restageable\": 3").contains(alpha);
        assertThat(audit.get(3).details())
                .contains("\"restaged\": 3")
                .contains("\"pending\": 1")
                .contains(alpha);
    }

    @Test
    void theUnroutableScopeRestagesOnlyRowsThatCameBackUnroutable() throws Exception {
        String type = prefix + ".gamma";
        EventEnvelope published = envelope(type);
        EventEnvelope unroutable = envelope(type);
        tables.seedOutbox(published, windowStart.plusSeconds(5), State.PUBLISHED);
        tables.seedOutbox(unroutable, windowStart.plusSeconds(6), State.UNROUTABLE);
        try (EventQueue nowBound = new EventQueue(type)) {
            JsonObject result = replays.awaitEnd(
                    AdminReplays.started(replay(AdminTokens.admin(user), window(Map.of("scope", "unroutable")))),
                    Duration.ofSeconds(30));
            assertThat(result.getInt("matched")).isEqualTo(1);
            assertThat(result.getInt("restaged")).isEqualTo(1);
            assertThat(result.getString("scope")).isEqualTo("unroutable");
            nowBound.awaitArrivalOf(List.of(unroutable), Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> tables.outbox(unroutable.id()).publishedAt() != null);
            assertThat(tables.outbox(unroutable.id()).unroutableAt()).isNull();
            assertThat(tables.outbox(published.id()).publication()).isZero();
            assertThat(nowBound.messages())
                    .extracting(EventQueue.Message::id)
                    .containsExactly(unroutable.id().toString());
        }
    }

    @Test
    void aReplayedOrderReachesTheShipmentsConsumerAsADuplicateNotASecondShipment() throws Exception {
        ConsumerTables consumer = new ConsumerTables(Coordinates.mainSchema());
        HttpResponse<String> placed =
                Http.postJson(server, "/api/orders", "{\"customer\":\"ada\",\"sku\":\"kettle\",\"quantity\":1}");
        assertThat(placed.statusCode()).isEqualTo(201);
        UUID orderId = UUID.fromString(Http.json(placed).getString("id"));
        UUID eventId = UUID.fromString(Http.json(placed).getString("event_id"));
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.shipmentsForOrder(orderId) == 1);
        Pipeline.awaitQuiet();
        double processedBefore = Http.metric(server, "durability_inbox_processed_total", ORDERS_QUEUE_LABEL);
        double hitsBefore = Http.metric(server, "durability_inbox_dedup_hits_total", ORDERS_QUEUE_LABEL);

        OffsetDateTime createdAt = tables.createdAt(eventId);
        Map<String, String> justThisEvent = new LinkedHashMap<>();
        justThisEvent.put("from", createdAt.toString());
        justThisEvent.put("to", createdAt.plusNanos(1_000).toString());
        justThisEvent.put("event_type", "order.placed");
        JsonObject result = replays.awaitEnd(
                AdminReplays.started(replay(AdminTokens.admin(user), justThisEvent)), Duration.ofSeconds(30));
        assertThat(result.getInt("restaged")).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        Http.metric(server, "durability_inbox_dedup_hits_total", ORDERS_QUEUE_LABEL) - hitsBefore >= 1);
        Thread.sleep(1_000); // a second run of the handler would show now
        assertThat(Http.metric(server, "durability_inbox_dedup_hits_total", ORDERS_QUEUE_LABEL) - hitsBefore)
                .isEqualTo(1);
        assertThat(Http.metric(server, "durability_inbox_processed_total", ORDERS_QUEUE_LABEL) - processedBefore)
                .isZero();
        assertThat(consumer.shipmentsForOrder(orderId)).isEqualTo(1);
        assertThat(tables.outbox(eventId).publication()).isEqualTo(1);
        assertThat(tables.outbox(eventId).publishedAt()).isNotNull();
    }

    @Test
    void invalidWindowsAreRefusedWithProblemDetailsThatSayWhyAndAreAudited() throws Exception {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
        Map<Map<String, String>, String> refusals = new LinkedHashMap<>();
        refusals.put(Map.of("to", now.toString()), "from is required");
        refusals.put(Map.of("from", "yesterday", "to", now.toString()), "from is not an RFC 3339 time");
        refusals.put(Map.of("from", "2026-01-01T00:00:00", "to", now.toString()), "from has no UTC offset");
        refusals.put(Map.of("from", now.toString(), "to", now.minusHours(1).toString()), "empty or inverted");
        refusals.put(Map.of("from", now.toString(), "to", now.toString()), "empty or inverted");
        refusals.put(
                Map.of("from", now.toString(), "to", now.plusHours(1).toString(), "dry_run", "maybe"),
                "dry_run must be true or false");
        refusals.put(
                Map.of("from", now.toString(), "to", now.plusHours(1).toString(), "scope", "everything"),
                "scope must be all or unroutable");
        for (var refusal : refusals.entrySet()) {
            HttpResponse<String> response = replay(AdminTokens.admin(user), refusal.getKey());
            assertThat(response.statusCode()).as("%s", refusal.getKey()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            JsonObject problem = Http.json(response);
            assertThat(problem.getString("type")).isEqualTo("https://durability.dev/problems/admin/invalid-request");
            assertThat(problem.getInt("status")).isEqualTo(400);
            assertThat(problem.getString("detail")).as("%s", refusal.getKey()).contains(refusal.getValue());
        }

        // Published events are pruned after 30 days: a window starting before that would replay part of itself.
        HttpResponse<String> tooOld = replay(
                AdminTokens.admin(user),
                Map.of(
                        "from",
                        now.minusDays(40).toString(),
                        "to",
                        now.minusDays(39).toString(),
                        "dry_run",
                        "true"));
        assertThat(tooOld.statusCode()).isEqualTo(422);
        assertThat(Http.json(tooOld).getString("type"))
                .isEqualTo("https://durability.dev/problems/admin/window-beyond-retention");
        assertThat(Http.json(tooOld).getString("detail")).contains("retention deletes events older than 30 days");

        List<AdminTables.AuditRow> audit = tables.auditOf(user);
        assertThat(audit).hasSize(refusals.size() + 1);
        assertThat(audit).allSatisfy(row -> assertThat(row.outcome()).isEqualTo("refused"));
        assertThat(audit.get(1).details()).contains("\"from\": \"yesterday\"").contains("refusal");
    }

    @Test
    void anOffsetWrittenWithAPlusSurvivesAQueryStringThatDecodedItAsASpace() throws Exception {
        OffsetDateTime start = windowStart.withOffsetSameInstant(ZoneOffset.ofHours(2));
        // Written into the query unencoded, as a hand-typed curl command does: the server decodes '+' as a space.
        String raw = "from=" + start + "&to=" + start.plusHours(1) + "&dry_run=true";
        HttpResponse<String> response = Http.send(HttpRequest.newBuilder(admin.resolve("/admin/events/replay?" + raw))
                .header("Authorization", "Bearer " + AdminTokens.admin(user))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(OffsetDateTime.parse(Http.json(response).getString("from"))).isEqualTo(windowStart);
    }

    @Test
    void anEventTypeThatLooksLikeSqlIsJustAStringThatMatchesNothing() throws Exception {
        tables.seedOutbox(envelope(prefix + ".delta"), windowStart.plusSeconds(10), State.PUBLISHED);
        JsonObject result = replays.awaitEnd(
                AdminReplays.started(replay(
                        AdminTokens.admin(user),
                        window(Map.of(
                                "event_type", "x' OR '1'='1'; DELETE FROM event_outbox; --", "dry_run", "false")))),
                Duration.ofSeconds(30));
        assertThat(result.getInt("matched")).isZero();
        assertThat(result.getInt("restaged")).isZero();
        assertThat(result.getString("event_type")).isEqualTo("x' OR '1'='1'; DELETE FROM event_outbox; --");
        assertThat(ok(replay(AdminTokens.admin(user), window(Map.of("dry_run", "true"))))
                        .getInt("matched"))
                .isEqualTo(1);
    }

    /**
     * Hostile values in every parameter: answered with a 4xx problem or a count, never a 5xx, and every refusal
     * audited (the audit keeps what PostgreSQL can store: a NUL shows as U+FFFD).
     */
    @Test
    void hostileParameterValuesAreAnsweredWithoutAServerError() throws Exception {
        List<String> hostile = List.of(
                "x".repeat(10_000),
                "%00",
                "a%00b",
                "%C3%28",
                "%FF%FE",
                "%0D%0AX-Injected:%201",
                "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
                "'%3B%20DROP%20TABLE%20admin_audit%3B%20--",
                "%E2%80%AE%F0%9F%92%A5");
        long auditBefore = tables.auditCount();
        int answered = 0;
        for (String parameter : List.of("from", "to", "event_type", "scope", "dry_run")) {
            for (String value : hostile) {
                Map<String, String> valid = new LinkedHashMap<>();
                valid.put("from", URLEncoder.encode(windowStart.toString(), StandardCharsets.UTF_8));
                valid.put("to", URLEncoder.encode(windowEnd.toString(), StandardCharsets.UTF_8));
                valid.put("dry_run", "true");
                valid.put(parameter, value); // already in its raw, percent-encoded form
                String query = valid.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining("&"));
                HttpResponse<String> response =
                        Http.send(HttpRequest.newBuilder(admin.resolve("/admin/events/replay?" + query))
                                .timeout(Duration.ofSeconds(30))
                                .header("Authorization", "Bearer " + AdminTokens.admin(user))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build());
                assertThat(response.statusCode()).as("%s=%s", parameter, value).isIn(200, 400);
                assertThat(response.headers().firstValue("Content-Type"))
                        .as("%s=%s", parameter, value)
                        .hasValueSatisfying(type -> assertThat(type).startsWith("application/"));
                assertThat(response.headers().firstValue("X-Injected")).isEmpty();
                answered++;
            }
        }
        assertThat(tables.auditCount() - auditBefore).isEqualTo(answered);
        assertThat(tables.auditOf(user)).hasSize(answered);
    }

    @Test
    void onlyAValidAdminTokenGetsIn() throws Exception {
        String query = "from=" + windowStart + "&to=" + windowEnd + "&dry_run=true";
        Map<String, Integer> refused = new LinkedHashMap<>();
        refused.put("none", 401);
        refused.put("Bearer " + AdminTokens.expired(user), 401);
        refused.put("Bearer " + AdminTokens.signedByAnotherKey(user), 401);
        refused.put("Bearer " + AdminTokens.fromAnotherIssuer(user), 401);
        refused.put("Bearer " + AdminTokens.forAudience(user, "billing"), 401);
        // Another service's admin API (its audience is its own name's), and the audience every service shared
        // before each took its own: a token for one service's admin API opens no other.
        refused.put("Bearer " + AdminTokens.forAudience(user, "billing.admin"), 401);
        refused.put("Bearer " + AdminTokens.forAudience(user, "durability-admin"), 401);
        refused.put("Bearer not.a.token", 401);
        refused.put(Http.basic("operator"), 401); // the pages' user, but the API takes tokens only
        refused.put("Bearer " + AdminTokens.nonAdmin(user), 403);
        for (var attempt : refused.entrySet()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(admin.resolve("/admin/events/replay?" + query))
                    .POST(HttpRequest.BodyPublishers.noBody());
            if (!attempt.getKey().equals("none")) {
                request.header("Authorization", attempt.getKey());
            }
            assertThat(Http.send(request.build()).statusCode())
                    .as(attempt.getKey())
                    .isEqualTo(attempt.getValue());
        }
        assertThat(tables.auditOf(user)).isEmpty();
        assertThat(replay(AdminTokens.admin(user), window(Map.of("dry_run", "true")))
                        .statusCode())
                .isEqualTo(200);
    }

    /**
     * The admin pages' session (form login) opens nothing on the API, also not through a spelling of its path that
     * the server's token matching does not recognise: a browser's cookies never act there.
     */
    @Test
    void aSignedInAdminsBrowserSessionIsRefusedByTheApi() throws Exception {
        AdminHttp browser = new AdminHttp(admin);
        HttpResponse<String> signedIn = browser.signIn("operator", "operator-demo");
        assertThat(signedIn.body()).contains(AdminHttp.SIGNED_IN);
        long auditBefore = tables.auditCount();
        String query = "?from=" + windowStart + "&to=" + windowEnd + "&dry_run=true";
        for (String path :
                List.of("/admin/events/replay", "/admin/events;jsessionid=x/replay", "/admin/%65vents/replay")) {
            HttpResponse<String> response = browser.send(HttpRequest.newBuilder(admin.resolve(path + query))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build());
            // The contract's refusal, whichever spelling: 401 asking for a bearer token (a 404 would say nothing
            // about whether the session was refused).
            assertThat(response.statusCode()).as(path).isEqualTo(401);
            assertThat(response.headers().firstValue("WWW-Authenticate"))
                    .as(path)
                    .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Bearer"));
        }
        assertThat(tables.auditCount()).isEqualTo(auditBefore);
    }

    @Test
    void aReplayRetriedWithTheSameIdempotencyKeyRunsOnceAndAnswersAlike() throws Exception {
        String type = prefix + ".epsilon";
        EventEnvelope published = envelope(type);
        tables.seedOutbox(published, windowStart.plusSeconds(3), State.PUBLISHED);
        String token = AdminTokens.admin(user);
        String key = UUID.randomUUID().toString();
        String query = "from=" + URLEncoder.encode(windowStart.toString(), StandardCharsets.UTF_8) + "&to="
                + URLEncoder.encode(windowEnd.toString(), StandardCharsets.UTF_8) + "&event_type=" + type;
        HttpRequest request = HttpRequest.newBuilder(admin.resolve("/admin/events/replay?" + query))
                .header("Authorization", "Bearer " + token)
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> first = Http.send(request);
        HttpResponse<String> retry = Http.send(request);
        URI job = AdminReplays.started(first);
        assertThat(retry.statusCode()).isEqualTo(202);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).hasValue(job.toString());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replays.awaitEnd(job, Duration.ofSeconds(30)).getInt("restaged"))
                .isEqualTo(1);
        assertThat(tables.outbox(published.id()).publication()).isEqualTo(1);
        assertThat(tables.auditOf(user))
                .extracting(row -> row.action() + " " + row.outcome())
                .containsExactly("replay started", "replay done");
    }

    /**
     * One job per overlapping window: while a job runs (its first slice held here on a row lock), a second request
     * for an overlapping window is refused with 409 naming it and changes nothing; an adjacent window is not
     * overlapping. The job's resource answers while it runs; an unknown job is a 404.
     */
    @Test
    void aSecondReplayOfAnOverlappingWindowIsRefusedWhileTheFirstRuns() throws Exception {
        String type = prefix + ".zeta";
        EventEnvelope held = envelope(type);
        tables.seedOutbox(held, windowStart.plusSeconds(7), State.PUBLISHED);
        URI job;
        URI next;
        try (Connection lock = OutboxTable.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement s = lock.prepareStatement(
                    "SELECT 1 FROM " + Coordinates.mainSchema() + ".event_outbox WHERE id = ? FOR UPDATE")) {
                s.setObject(1, held.id());
                s.executeQuery().close();
            }
            job = AdminReplays.started(replay(AdminTokens.admin(user), window(Map.of("event_type", type))));
            JsonObject running = replays.job(job);
            assertThat(running.getString("state")).isEqualTo("running");
            assertThat(running.getInt("restaged")).isZero();

            Map<String, String> overlapping = new LinkedHashMap<>();
            overlapping.put("from", windowStart.plusSeconds(30).toString());
            overlapping.put("to", windowEnd.plusHours(1).toString());
            HttpResponse<String> refused = replay(AdminTokens.admin(user), overlapping);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(Http.json(refused).getString("type"))
                    .isEqualTo("https://durability.dev/problems/admin/replay-running");
            assertThat(Http.json(refused).getString("detail")).contains(running.getString("id"));

            Map<String, String> adjacent = new LinkedHashMap<>();
            adjacent.put("from", windowEnd.toString());
            adjacent.put("to", windowEnd.plusMinutes(1).toString());
            adjacent.put("event_type", type);
            next = AdminReplays.started(replay(AdminTokens.admin(user), adjacent));
            lock.rollback();
        }
        // A server works one job at a time, oldest first: the adjacent one after the first.
        assertThat(replays.awaitEnd(next, Duration.ofSeconds(30)).getInt("matched"))
                .isZero();
        assertThat(replays.awaitEnd(job, Duration.ofSeconds(30)).getInt("restaged"))
                .isEqualTo(1);
        assertThat(tables.outbox(held.id()).publication()).isEqualTo(1);
        assertThat(tables.auditOf(user))
                .extracting(row -> row.action() + " " + row.outcome())
                .containsExactly("replay started", "replay refused", "replay started", "replay done", "replay done");

        HttpResponse<String> unknown = replays.get(URI.create("/admin/events/replay/jobs/" + UUID.randomUUID()));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(Http.json(unknown).getString("type")).isEqualTo("https://durability.dev/problems/admin/not-found");
        assertThat(replays.get(URI.create("/admin/events/replay/jobs/not-a-uuid"))
                        .statusCode())
                .isEqualTo(404);
    }

    /** On the test server's development profile: the shipped configuration serves no /openapi (decision 0062). */
    @Test
    void openApiDescribesTheReplayEndpointAndItsBearerScheme() {
        String document = Http.get(server, "/openapi").body();
        assertThat(document).contains("/events/replay").contains("dry_run").contains("scheme: bearer");
    }

    private Map<String, String> window(Map<String, String> more) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("from", windowStart.toString());
        parameters.put("to", windowEnd.toString());
        parameters.putAll(more);
        return parameters;
    }

    private HttpResponse<String> replay(String token, Map<String, String> parameters) {
        return AdminReplays.replay(admin, token, parameters);
    }

    private static JsonObject ok(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        return Http.json(response);
    }

    private static EventEnvelope envelope(String type) {
        return OutboxTable.envelopes(type, 1).get(0);
    }
}
