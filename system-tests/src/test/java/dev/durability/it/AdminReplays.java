package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Drives a server's replay API with a bearer token as scripts do (docs/admin.md): start a job, read it until it
 * ends, cancel it.
 */
final class AdminReplays {
    private final URI admin;
    private final String token;

    AdminReplays(URI admin, String user) {
        this.admin = admin;
        this.token = AdminTokens.admin(user);
    }

    /** POST /admin/events/replay with these parameters (encoded here). */
    HttpResponse<String> replay(Map<String, String> parameters) {
        return replay(admin, token, parameters);
    }

    /** POST /admin/events/replay on this server with any token: a non-admin's, an expired one. */
    static HttpResponse<String> replay(URI admin, String token, Map<String, String> parameters) {
        String query = parameters.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return Http.send(HttpRequest.newBuilder(admin.resolve("/admin/events/replay?" + query))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    /** The started job's resource, from a 202 answer: its Location, and the body is the job as GET answers it. */
    static URI started(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        URI location = URI.create(response.headers().firstValue("Location").orElseThrow());
        JsonObject job = Http.json(response);
        assertThat(location.getPath()).isEqualTo("/admin/events/replay/jobs/" + job.getString("id"));
        return location;
    }

    JsonObject job(URI location) {
        HttpResponse<String> response = get(location);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Http.json(response);
    }

    HttpResponse<String> get(URI location) {
        return Http.send(HttpRequest.newBuilder(admin.resolve(location.getPath()))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .GET()
                .build());
    }

    /** Reads the job until it is no longer running; answers it as it ended. */
    JsonObject awaitEnd(URI location, Duration atMost) {
        return await("replay job " + location + " ended")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> job(location), job -> !job.getString("state").equals("running"));
    }

    HttpResponse<String> cancel(URI location) {
        return Http.send(HttpRequest.newBuilder(admin.resolve(location.getPath()))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token)
                .DELETE()
                .build());
    }
}
