package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shop as its customers and operators meet it, from outside the server: what the README promises an adopter,
 * each step through the shop's own code and configuration.
 */
class ShopIT {
    private static final URI HTTP = URI.create("http://localhost:9290");
    private static final URI HTTPS = URI.create("https://localhost:9653");
    private static final String ALICE = basic("alice", "alice-example");
    private static final String OBSERVER = "shop-it.order-placed";

    private static HttpClient http;
    private static Connection broker;
    private static Channel channel;

    @BeforeAll
    static void clientsAndAQueueThatSeesEveryOrderPlaced() throws Exception {
        SSLContext trustingTheExamplesOwnCertificate = SSLContext.getInstance("TLS");
        trustingTheExamplesOwnCertificate.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
        http = HttpClient.newBuilder()
                .sslContext(trustingTheExamplesOwnCertificate)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        // The build starts the server without waiting for the application; readiness says it started, its
        // database and broker reachable (the library declares its exchanges by then).
        await("the shop ready")
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions()
                .until(() -> http.send(
                                        HttpRequest.newBuilder(HTTP.resolve("/health/ready"))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .statusCode()
                        == 200);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUsername("guest");
        factory.setPassword("guest");
        broker = factory.newConnection("shop-it");
        channel = broker.createChannel();
        channel.queueDeclare(OBSERVER, false, false, false, null);
        channel.queueBind(OBSERVER, "shop.events", "order.placed");
        channel.queuePurge(OBSERVER);
    }

    @AfterAll
    static void removeTheObserver() throws Exception {
        if (channel != null) {
            channel.queueDelete(OBSERVER);
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void anOrderIsInvoicedOnceRetriedWithItsKeyAndReplayedByAnOperator() throws Exception {
        Instant before = Instant.now().minus(1, ChronoUnit.MINUTES);
        String key = "order-" + UUID.randomUUID();
        String body = "{\"sku\":\"tea-01\",\"quantity\":3}";

        // The order and its event commit together; the consumer invoices it.
        HttpResponse<String> placed = post("/shop/api/orders", key, body);
        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
        String orderId = json(placed.body()).getString("id");
        await("the invoice of order " + orderId)
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> invoices(orderId).size() == 1);
        assertThat(invoices(orderId).getJsonObject(0).getInt("quantity")).isEqualTo(3);

        // The same request again, with its key: the first answer, nothing placed twice.
        HttpResponse<String> retried = post("/shop/api/orders", key, body);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.body()).isEqualTo(placed.body());
        assertThat(retried.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        List<JsonObject> published = awaitPublished(orderId, 1);
        assertThat(published).hasSize(1);

        // An operator replays the window through the admin API: the event goes out again, the consumer sees it,
        // and the invoice stays one.
        double dedupHitsBefore = dedupHits();
        String window = "/ops/events/replay?from=" + before + "&to=" + Instant.now().plus(1, ChronoUnit.MINUTES)
                + "&event_type=order.placed";
        // The preview first: the event is restageable once the drain stamped it published.
        await("the order's event restageable")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> json(replay(window + "&dry_run=true").body())
                                .getJsonNumber("restageable")
                                .longValue()
                        == 1);
        HttpResponse<String> replay = replay(window);
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(202);
        URI job = HTTPS.resolve(replay.headers().firstValue("Location").orElseThrow());
        await("replay job " + job + " done")
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> "done".equals(adminGet(job).getString("state")));
        assertThat(adminGet(job).getJsonNumber("restaged").longValue()).isEqualTo(1);

        List<JsonObject> again = awaitPublished(orderId, 1);
        assertThat(again).hasSize(1);
        await("the replayed order.placed consumed")
                .atMost(Duration.ofSeconds(30))
                .until(() -> dedupHits() >= dedupHitsBefore + 1);
        assertThat(invoices(orderId)).hasSize(1);
    }

    private static HttpResponse<String> post(String path, String key, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(HTTP.resolve(path))
                        .header("Authorization", ALICE)
                        .header("Content-Type", "application/json")
                        .header("Idempotency-Key", "\"" + key + "\"")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonArray invoices(String orderId) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(HTTP.resolve("/shop/api/orders/" + orderId + "/invoices"))
                        .header("Authorization", ALICE)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return reader.readArray();
        }
    }

    /** The order.placed events of this order that reached the observing queue by now, waiting for {@code count}. */
    private static List<JsonObject> awaitPublished(String orderId, int count) {
        List<JsonObject> events = new ArrayList<>();
        await("order.placed of " + orderId + " published")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    GetResponse message;
                    while ((message = channel.basicGet(OBSERVER, true)) != null) {
                        JsonObject event = json(new String(message.getBody(), StandardCharsets.UTF_8));
                        if (event.getJsonObject("payload").getString("order_id").equals(orderId)) {
                            events.add(event);
                        }
                    }
                    return events.size() >= count;
                });
        return events;
    }

    /** durability_inbox_dedup_hits_total of the shop's consumer, from the shop's /metrics. */
    private static double dedupHits() throws Exception {
        String metrics = http.send(
                        HttpRequest.newBuilder(HTTP.resolve("/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher line = Pattern.compile("(?m)^durability_inbox_dedup_hits_total\\{[^}]*queue=\"shop.invoicing\"[^}]*} (\\S+)$")
                .matcher(metrics);
        return line.find() ? Double.parseDouble(line.group(1)) : 0;
    }

    private static HttpResponse<String> replay(String pathAndQuery) throws Exception {
        return http.send(
                HttpRequest.newBuilder(HTTPS.resolve(pathAndQuery))
                        .header("Authorization", "Bearer " + adminToken())
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonObject adminGet(URI uri) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(uri)
                        .header("Authorization", "Bearer " + adminToken())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json(response.body());
    }

    /** A bearer token as the shop's identity provider would issue one to an operator (docs/admin.md). */
    private static String adminToken() throws Exception {
        String pem = Files.readString(Path.of(System.getProperty("shop.admin.key")));
        byte[] der = Base64.getMimeDecoder()
                .decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        Instant now = Instant.now();
        SignedJWT token = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256).type(JOSEObjectType.JWT).build(),
                new JWTClaimsSet.Builder()
                        .issuer("https://durability.dev/admin-tokens")
                        .audience("shop.admin")
                        .subject("oscar")
                        .claim("upn", "oscar")
                        .claim("groups", List.of("durability-admin"))
                        .issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plus(10, ChronoUnit.MINUTES)))
                        .jwtID(UUID.randomUUID().toString())
                        .build());
        token.sign(new RSASSASigner(key));
        return token.serialize();
    }

    private static JsonObject json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** The example's server makes its own certificate at first start; nothing to trust it by. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
