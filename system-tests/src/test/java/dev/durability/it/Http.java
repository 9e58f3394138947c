package dev.durability.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

/**
 * A small HTTP client for the servers under test. Calls of the orders API ({@code /api}) are made as the demo
 * user {@value #USER}, one of the reference deployment's development users.
 */
final class Http {
    static final String USER = "ada";
    static final String OTHER_USER = "grace";
    /** The label of the orders API's idempotency series: the admin WAR's filter has its own. */
    static final String ORDERS_MODULE = "module=\"/\"";

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .sslContext(TestServerTls.context())
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private Http() {}

    /** The {@code Authorization} value of a demo user (password {@code <name>-demo}). */
    static String basic(String user) {
        return "Basic "
                + Base64.getEncoder().encodeToString((user + ":" + user + "-demo").getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> postJson(URI server, String path, String json) {
        return send(HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    /** Places one order for {@code customer} with {@code Idempotency-Key: key}, waiting up to a minute. */
    static HttpResponse<String> postKeyedOrder(URI server, String key, String customer) {
        return send(HttpRequest.newBuilder(server.resolve("/api/orders"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"customer\":\"" + customer + "\",\"sku\":\"book-1\",\"quantity\":1}"))
                .build());
    }

    /**
     * Posts bytes exactly as given, under the given Content-Type ({@code null}: none), to send what a JSON
     * client never would. A long timeout: a bulk of thousands of orders takes seconds on a loaded machine.
     */
    static HttpResponse<String> postBytes(URI server, String path, String contentType, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return send(request.build());
    }

    static HttpResponse<String> get(URI server, String path) {
        return send(HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    }

    static JsonObject json(HttpResponse<String> response) {
        return Json.createReader(new StringReader(response.body())).readObject();
    }

    /** The value of one Prometheus sample on {@code /metrics} (the first line naming it), or 0 when absent. */
    static double metric(URI server, String name) {
        String text = get(server, "/metrics").body();
        return text.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElse(0.0);
    }

    /**
     * How much the counter {@code name} grew from now on, summed over {@code servers}: for a figure any of them may
     * count (a lease recovery is counted by whichever server claims the row another held). A server that is down
     * when asked (a killed one) adds nothing: its counter died with it.
     */
    static DoubleSupplier metricSince(List<URI> servers, String name) {
        Map<URI, Double> before = servers.stream().collect(Collectors.toMap(s -> s, s -> metric(s, name)));
        return () -> servers.stream()
                .mapToDouble(s -> {
                    try {
                        return metric(s, name) - before.get(s);
                    } catch (UncheckedIOException down) {
                        return 0;
                    }
                })
                .sum();
    }

    /**
     * How long ago the timestamp {@code name} on {@code /metrics} was, on this machine's clock (the server's, for
     * a server on this machine): a liveness signal's age, as an alert computes it ({@code time() - x}).
     */
    static double secondsSince(URI server, String name) {
        return System.currentTimeMillis() / 1e3 - metric(server, name);
    }

    /** The sum of every sample of {@code name} on {@code /metrics}, whatever its labels (0 when there is none). */
    static double metricSum(URI server, String name) {
        String text = get(server, "/metrics").body();
        return text.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The value of the sample of {@code name} whose labels include every one of {@code labels} (e.g. {@code queue="x"}), or 0. */
    static double metric(URI server, String name, String... labels) {
        String text = get(server, "/metrics").body();
        return text.lines()
                .filter(line ->
                        line.startsWith(name + "{") && Arrays.stream(labels).allMatch(line::contains))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElse(0.0);
    }

    static HttpResponse<String> send(HttpRequest request) {
        if (request.uri().getPath().startsWith("/api")
                && request.headers().firstValue("Authorization").isEmpty()) {
            HttpRequest.Builder authenticated =
                    HttpRequest.newBuilder(request, (name, value) -> true).header("Authorization", basic(USER));
            request = authenticated.build();
        }
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
