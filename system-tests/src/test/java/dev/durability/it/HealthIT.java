package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The MicroProfile Health probes of the shared server: ready while the database, the broker and the
 * schema are, and ready again once an outage ends.
 */
class HealthIT {
    private final URI server = Coordinates.mainServer();

    @Test
    void aServerWithEverythingReachableIsReadyAndLive() {
        HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 200);
        HttpResponse<String> live = Http.get(server, "/health/live");

        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(checks(ready))
                .containsEntry("durability-database", "UP")
                .containsEntry("durability-schema", "UP")
                .containsEntry("durability-broker", "UP");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(checks(live)).containsEntry("durability-drain", "UP").containsEntry("durability-consumers", "UP");
    }

    @Test
    void withoutTheBrokerTheServerIsNotReadyUntilItIsBack() {
        Rabbitmq.stopApp();
        try {
            HttpResponse<String> ready = await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 503);

            assertThat(checks(ready))
                    .containsEntry("durability-broker", "DOWN")
                    .containsEntry("durability-database", "UP");
        } finally {
            Rabbitmq.startApp();
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Http.get(server, "/health/ready").statusCode() == 200);
    }

    @Test
    void withoutTheDatabaseTheServerIsNotReadyUntilItIsBack() {
        Postgresql.stop();
        try {
            HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                    .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 503);

            assertThat(checks(ready)).containsEntry("durability-database", "DOWN");
        } finally {
            Postgresql.start();
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Http.get(server, "/health/ready").statusCode() == 200);
    }

    private static Map<String, String> checks(HttpResponse<String> response) {
        JsonObject health = Http.json(response);
        // Liberty lists a library check once per module of the EAR that sees it: the copies must agree.
        return health.getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .collect(Collectors.toMap(
                        check -> check.getString("name"),
                        check -> check.getString("status"),
                        (one, other) -> one.equals(other) ? one : one + " and " + other));
    }
}
