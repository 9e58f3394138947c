package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.config.control.InvalidConfigurationException;
import dev.durability.config.control.ServiceConfig;
import dev.durability.idempotency.boundary.IdempotencyFilter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The idempotency filter as another WAR uses it (the published jar in {@code WEB-INF/lib}, registered by its web fragment),
 * in front of a probe handler that answers with any size of body, fails, outlives its claim or sets cookies
 * on request. Over HTTP, on the shared server, on the records table of the deployed EAR's schema.
 */
@ExtendWith(ArquillianExtension.class)
class IdempotencyFilterIT {
    private static final long CLAIM_TIMEOUT_MS = 3_000;
    private static final long TRANSACTION_TIMEOUT_S = 10;
    /** Two bodies of the library's cap (2 MiB). */
    private static final long BUFFER_BUDGET_BYTES = 4L * 1024 * 1024;

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @ArquillianResource
    URL base;

    private URI probe;

    @Deployment(testable = false)
    static WebArchive probe() {
        return ShrinkWrap.create(WebArchive.class, "idempotency-probe.war")
                .addClass(IdempotencyProbe.class)
                .addClass(InvalidConfigurationException.class)
                .addClass(ServiceConfig.class)
                .addAsLibraries(jarOf(IdempotencyFilter.class))
                .addAsResource(new StringAsset(configuration()), "META-INF/microprofile-config.properties")
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
                .setWebXML(new StringAsset("""
                        <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                          <security-constraint>
                            <web-resource-collection>
                              <web-resource-name>probe</web-resource-name>
                              <url-pattern>/secured/*</url-pattern>
                            </web-resource-collection>
                            <auth-constraint><role-name>**</role-name></auth-constraint>
                          </security-constraint>
                          <login-config><auth-method>BASIC</auth-method></login-config>
                          <!-- The library's data source reference, which an EAR holding the library declares: here
                               the shared server's own data source, whose schema holds the records. -->
                          <resource-ref>
                            <res-ref-name>%s</res-ref-name>
                            <res-type>javax.sql.DataSource</res-type>
                            <lookup-name>jdbc/durability</lookup-name>
                          </resource-ref>
                        </web-app>
                        """.formatted(ServiceConfig.DATA_SOURCE)));
    }

    /**
     * The library's idempotency defaults, with a short claim and transaction timeout, a buffer budget of two
     * maximal bodies and paths that require a key.
     */
    private static String configuration() {
        try (InputStream defaults = InvalidConfigurationException.class
                .getClassLoader()
                .getResourceAsStream("META-INF/microprofile-config.properties")) {
            String library = new String(defaults.readAllBytes(), StandardCharsets.UTF_8);
            return library.lines()
                            .filter(line -> line.startsWith("durability.idempotency."))
                            .filter(line -> !line.startsWith("durability.idempotency.claim-timeout-ms="))
                            .filter(line -> !line.startsWith("durability.idempotency.transaction-timeout-seconds="))
                            .filter(line -> !line.startsWith("durability.idempotency.buffer-budget-bytes="))
                            .collect(Collectors.joining("\n"))
                    + "\ndurability.idempotency.claim-timeout-ms=" + CLAIM_TIMEOUT_MS
                    + "\ndurability.idempotency.transaction-timeout-seconds=" + TRANSACTION_TIMEOUT_S
                    + "\ndurability.idempotency.buffer-budget-bytes=" + BUFFER_BUDGET_BYTES
                    + "\ndurability.idempotency.required-paths=/secured/required/*,/open/required/*"
                    // The shared server's schema (its DB_SCHEMA), where the records of its filter live.
                    + "\n" + ServiceConfig.SCHEMA + "=${db.schema}\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @BeforeEach
    void locateProbe() throws URISyntaxException {
        probe = base.toURI();
    }

    @Test
    void aResponseOverTheCapReachesTheLiveCallerWholeAndItsReplayIsAMarkedSentinel() throws Exception {
        String key = UUID.randomUUID().toString();
        int bytes = 1536 * 1024;
        double sentinels = Http.metricSum(Coordinates.mainServer(), "durability_idempotency_sentinels_total");

        HttpResponse<byte[]> live = postBytes("secured/large?bytes=" + bytes, key, Http.USER);
        HttpResponse<byte[]> replay = postBytes("secured/large?bytes=" + bytes, key, Http.USER);

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).hasSize(bytes);
        for (int i = 0; i < bytes; i += 4099) {
            assertThat(live.body()[i]).as("byte %d", i).isEqualTo((byte) (i % 251));
        }
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAY_BODY)).contains("omitted");
        assertThat(replay.body()).isEmpty();
        assertThat(runs(key)).as("the handler ran once").isEqualTo(1);
        assertThat(Http.metricSum(Coordinates.mainServer(), "durability_idempotency_sentinels_total") - sentinels)
                .isEqualTo(1.0);
    }

    @Test
    void aResponseWithinTheCapIsReplayedByteForByte() {
        String key = UUID.randomUUID().toString();
        int bytes = 1024 * 1024;

        HttpResponse<byte[]> live = postBytes("secured/large?bytes=" + bytes, key, Http.USER);
        HttpResponse<byte[]> replay = postBytes("secured/large?bytes=" + bytes, key, Http.USER);

        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAY_BODY)).isEmpty();
        assertThat(replay.body()).isEqualTo(live.body()).hasSize(bytes);
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void aHandlerThatFailedRunsAgainOnARetryAndItsSuccessIsReplayed() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> failed = post("secured/fail-first", key, Http.USER);
        HttpResponse<String> retried = post("secured/fail-first", key, Http.USER);
        HttpResponse<String> replayed = post("secured/fail-first", key, Http.USER);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.headers().firstValue(IdempotencyFilter.REPLAYED)).isEmpty();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.body()).isEqualTo("run 2");
        assertThat(retried.headers().firstValue(IdempotencyFilter.REPLAYED)).isEmpty();
        assertThat(replayed.body()).isEqualTo("run 2");
        assertThat(replayed.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(runs(key)).isEqualTo(2);
    }

    @Test
    void aSuccessWhoseClientLeftMidBodyIsNotRunAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        try (RawHttp http = new RawHttp(probe)) {
            http.head(
                    "POST " + probe.getPath() + "secured/large?bytes=" + (64 * 1024 * 1024) + " HTTP/1.1",
                    "Host: localhost",
                    "Authorization: " + Http.basic(Http.USER),
                    "Idempotency-Key: " + key,
                    "Content-Length: 2");
            http.out().write("{}".getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.status(http.readHead())).isEqualTo(200);
            assertThat(http.in().readNBytes(64 * 1024)).hasSize(64 * 1024);
        } // the client leaves with most of the body unsent

        HttpResponse<byte[]> retry = await("the first request finalized")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () -> postBytes("secured/large?bytes=" + (64 * 1024 * 1024), key, Http.USER),
                        r -> r.statusCode() != 409);

        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAY_BODY)).contains("omitted");
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void aHandlerRunningPastTheClaimTimeoutKeepsItsKeyAndRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<String>> first =
                CompletableFuture.supplyAsync(() -> post("secured/held-first", key, Http.USER));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs(key) == 1);

        await("the first request runs past its first claim's term")
                .atMost(Duration.ofSeconds(30))
                .until(() -> runningFor("/secured/held-first", Duration.ofMillis(CLAIM_TIMEOUT_MS * 5 / 3)));
        HttpResponse<String> retry = post("secured/held-first", key, Http.USER);
        release(key);
        HttpResponse<String> firstAnswer = first.get();
        HttpResponse<String> replay = post("secured/held-first", key, Http.USER);

        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(409);
        assertThat(retry.headers().firstValue("Retry-After")).isPresent();
        assertThat(firstAnswer.statusCode()).isEqualTo(201);
        assertThat(firstAnswer.body()).isEqualTo("run 1");
        assertThat(replay.body()).isEqualTo("run 1");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void aHandlerOutlivingTheTransactionTimeoutLosesTheKeyAndKeepsNothing() throws Exception {
        String key = UUID.randomUUID().toString();
        double fenced = Http.metricSum(Coordinates.mainServer(), "durability_idempotency_fenced_total");
        double conflicts = Http.metricSum(Coordinates.mainServer(), "durability_idempotency_conflicts_total");
        CompletableFuture<HttpResponse<String>> first =
                CompletableFuture.supplyAsync(() -> post("secured/held-first", key, Http.USER));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs(key) == 1);

        HttpResponse<String> whileClaimed = post("secured/held-first", key, Http.USER);
        await("the first request's claim ran out after its transaction timeout; it is still running")
                .atMost(Duration.ofSeconds(60))
                .until(() -> claimExpired("/secured/held-first"));
        HttpResponse<String> second = post("secured/held-first", key, Http.USER);
        release(key);
        HttpResponse<String> firstAnswer = first.get();
        HttpResponse<String> replay = post("secured/held-first", key, Http.USER);

        assertThat(whileClaimed.statusCode()).isEqualTo(409);
        assertThat(whileClaimed.headers().firstValue("Retry-After")).isPresent();
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo("run 2");
        assertThat(firstAnswer.statusCode())
                .as("the late caller learns that nothing of its run was kept")
                .isEqualTo(503);
        assertThat(Http.json(firstAnswer).getString("type"))
                .isEqualTo("https://durability.dev/problems/idempotency-not-committed");
        assertThat(replay.body())
                .as("the record keeps the newer claim's answer")
                .isEqualTo("run 2");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(runs(key)).isEqualTo(2);
        assertThat(Http.metricSum(Coordinates.mainServer(), "durability_idempotency_fenced_total") - fenced)
                .isEqualTo(1.0);
        assertThat(Http.metricSum(Coordinates.mainServer(), "durability_idempotency_conflicts_total") - conflicts)
                .isEqualTo(1.0);
    }

    @Test
    void anAnswerWrittenBeforeTheHandlerFailedNeverReachesTheClientAndARetryRunsAgain() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("secured/commit-then-fail", key, Http.USER);
        HttpResponse<String> retry = post("secured/commit-then-fail", key, Http.USER);

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(first.body()).doesNotContain("run 1 begins");
        assertThat(retry.statusCode()).isEqualTo(500);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED)).isEmpty();
        assertThat(runs(key)).isEqualTo(2);
    }

    @Test
    void anAsynchronousHandlersAnswerIsRecordedAndReplayed() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("secured/async", key, Http.USER);
        HttpResponse<String> replay = post("secured/async", key, Http.USER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("async run 1");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.body()).isEqualTo("async run 1");
        assertThat(replay.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void anAnswerWrittenThroughTheWriterIsReplayedInItsEncoding() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("secured/writer", key, Http.USER);
        HttpResponse<String> replay = post("secured/writer", key, Http.USER);

        assertThat(first.body()).isEqualTo("gr\u00fc\u00dfe \ud83d\ude00 run 1");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void cookiesCredentialsAndUnlistedHeadersAreNeverReplayed() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("secured/echo", key, Http.USER);
        HttpResponse<String> replay = post("secured/echo", key, Http.USER);

        assertThat(first.headers().allValues("Set-Cookie")).anyMatch(cookie -> cookie.startsWith("probe-session="));
        assertThat(first.headers().firstValue("Authentication-Info")).isPresent();
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.body()).isEqualTo(first.body()).isEqualTo("run 1");
        assertThat(replay.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(replay.headers().firstValue("Content-Type"))
                .isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(replay.headers().allValues("Set-Cookie")).noneMatch(cookie -> cookie.startsWith("probe-session="));
        assertThat(replay.headers().firstValue("Authentication-Info")).isEmpty();
        assertThat(replay.headers().firstValue("X-Probe")).isEmpty();
    }

    @Test
    void anonymousRequestsPassThroughUntouched() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("open/echo", key, null);
        HttpResponse<String> second = post("open/echo", key, null);

        assertThat(first.body()).isEqualTo("run 1");
        assertThat(second.body()).isEqualTo("run 2");
        assertThat(second.headers().firstValue(IdempotencyFilter.REPLAYED)).isEmpty();
    }

    @Test
    void aPathThatRequiresAKeyRefusesARequestWithoutOne() {
        HttpResponse<String> without = post("secured/required/echo", null, Http.USER);
        HttpResponse<String> otherSpelling = post("secured/required;v=1/echo", null, Http.USER);
        HttpResponse<String> with =
                post("secured/required/echo", UUID.randomUUID().toString(), Http.USER);

        for (HttpResponse<String> refused : List.of(without, otherSpelling)) {
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(Http.json(refused).getString("type"))
                    .isEqualTo("https://durability.dev/problems/idempotency-key-missing");
        }
        assertThat(runs("")).as("the handler never ran without a key").isZero();
        assertThat(with.statusCode()).isEqualTo(201);
    }

    @Test
    void aPathThatRequiresAKeyRefusesAnAnonymousRequestWithoutOneAndKeysOneWithIt() {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> without = post("open/required/echo", null, null);
        HttpResponse<String> first = post("open/required/echo", key, null);
        HttpResponse<String> retry = post("open/required/echo", key, null);

        assertThat(without.statusCode()).isEqualTo(400);
        assertThat(Http.json(without).getString("type"))
                .isEqualTo("https://durability.dev/problems/idempotency-key-missing");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(runs(key)).as("the keyed anonymous request ran once").isEqualTo(1);
    }

    @Test
    void aKeyedMultipartFormReachesTheHandlerWholeAndIsReplayed() {
        String key = UUID.randomUUID().toString();
        String boundary = "probe-" + UUID.randomUUID();
        String form = "--" + boundary + "\r\n"
                + "Content-Disposition: form-data; name=\"note\"\r\n\r\n"
                + "hello\r\n"
                + "--" + boundary + "\r\n"
                + "Content-Disposition: form-data; name=\"doc\"; filename=\"a.txt\"\r\n"
                + "Content-Type: text/plain\r\n\r\n"
                + "line one\r\nline two\r\n"
                + "--" + boundary + "--\r\n";
        HttpRequest request = HttpRequest.newBuilder(probe.resolve("secured/multipart"))
                .timeout(Duration.ofSeconds(60))
                .header("Idempotency-Key", key)
                .header("Authorization", Http.basic(Http.USER))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();

        HttpResponse<String> first = send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> replay = send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("run 1; note=hello; note[null]=hello; doc[a.txt]=line one\r\nline two");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED)).contains("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(runs(key)).isEqualTo(1);
    }

    @Test
    void aKeyedRequestOverTheBufferBudgetIsAnswered503AndRunsNothingUntilTheBudgetIsFree() throws Exception {
        String key = UUID.randomUUID().toString();
        int maximal = 2 * 1024 * 1024;
        List<RawHttp> slow = new ArrayList<>();
        try {
            // Two callers declaring maximal bodies and sending them slowly hold the whole budget while read.
            for (int i = 0; i < BUFFER_BUDGET_BYTES / maximal; i++) {
                RawHttp http = new RawHttp(probe);
                slow.add(http);
                http.head(
                        "POST " + probe.getPath() + "secured/echo HTTP/1.1",
                        "Host: localhost",
                        "Authorization: " + Http.basic(Http.USER),
                        "Idempotency-Key: " + UUID.randomUUID(),
                        "Content-Length: " + maximal);
                http.out().write('{');
                http.out().flush();
            }
            HttpResponse<String> refused = await("the slow bodies hold the budget")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> post("secured/echo", key, Http.USER), r -> r.statusCode() == 503);

            assertThat(Http.json(refused).getString("type"))
                    .isEqualTo("https://durability.dev/problems/idempotency-busy");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(runs(key)).as("nothing ran").isZero();
        } finally {
            for (RawHttp http : slow) {
                http.close();
            }
        }
        HttpResponse<String> retried = await("the budget is free again")
                .atMost(Duration.ofSeconds(30))
                .until(() -> post("secured/echo", key, Http.USER), r -> r.statusCode() != 503);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(runs(key)).isEqualTo(1);
    }

    private HttpResponse<String> post(String path, String key, String user) {
        return send(request(path, key, user), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<byte[]> postBytes(String path, String key, String user) {
        return send(request(path, key, user), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest request(String path, String key, String user) {
        HttpRequest.Builder request = HttpRequest.newBuilder(probe.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        if (user != null) {
            request.header("Authorization", Http.basic(user));
        }
        return request.build();
    }

    private int runs(String key) {
        HttpResponse<String> runs = send(
                HttpRequest.newBuilder(probe.resolve("runs?key=" + key)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return Integer.parseInt(runs.body().strip());
    }

    private void release(String key) {
        send(
                HttpRequest.newBuilder(probe.resolve("release?key=" + key))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.discarding());
    }

    /** Whether the newest record of this path is still processing, claimed at least this long ago. */
    private static boolean runningFor(String path, Duration time) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT state = 'processing' AND claimed_at + ? * interval "
                        + "'1 millisecond' < now() FROM " + Coordinates.mainSchema()
                        + ".idempotency_responses WHERE path = ? ORDER BY created_at DESC LIMIT 1")) {
            s.setLong(1, time.toMillis());
            s.setString(2, path);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Whether the newest record of this path is still processing under a claim that ran out. */
    private static boolean claimExpired(String path) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT state = 'processing' AND claim_expires_at < now() FROM " + Coordinates.mainSchema()
                                + ".idempotency_responses WHERE path = ? ORDER BY created_at DESC LIMIT 1")) {
            s.setString(1, path);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body) {
        try {
            return CLIENT.send(request, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static File jarOf(Class<?> type) {
        try {
            return new File(
                    type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
