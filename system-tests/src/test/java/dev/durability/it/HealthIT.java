package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The MicroProfile Health probes of the shared server: ready while the database, the broker and the
 * schema are, and ready again once an outage ends.
 */
class HealthIT {
    private final URI server = Coordinates.mainServer();

    /** A database that will not vacuum the outbox is told at start, and only then. */
    @Test
    void aDatabaseWithAutovacuumOffIsWarnedAboutAtStart() throws Exception {
        String autovacuum;
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW autovacuum")) {
            rs.next();
            autovacuum = rs.getString(1);
        }
        StringBuilder log = new StringBuilder();
        try (Stream<Path> logs = Files.list(Path.of(Coordinates.mainServerDir(), "logs"))) {
            for (Path file : logs.filter(f -> f.getFileName().toString().startsWith("messages"))
                    .toList()) {
                log.append(Files.readString(file));
            }
        }
        if (autovacuum.equals("off")) {
            assertThat(log).contains("PostgreSQL runs with autovacuum off");
        } else {
            assertThat(log).doesNotContain("PostgreSQL runs with autovacuum off");
        }
    }

    @Test
    void aServerWithEverythingReachableIsReadyAndLive() {
        HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 200);
        HttpResponse<String> live = Http.get(server, "/health/live");

        assertThat(ready.statusCode()).isEqualTo(200);
        // Each check once, though the EAR has several web modules that see the library.
        assertThat(checks(ready))
                .containsOnly(
                        Map.entry("durability-database", "UP"),
                        Map.entry("durability-schema", "UP"),
                        Map.entry("durability-broker", "UP"));
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(checks(live))
                .containsOnly(Map.entry("durability-drain", "UP"), Map.entry("durability-consumers", "UP"));
        assertThat(Http.json(Http.get(server, "/health")).getJsonArray("checks"))
                .hasSize(5);
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
        ServerLog log = ServerLog.ofMainServerFromNow();
        Postgresql.stop();
        try {
            HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                    .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 503);

            assertThat(checks(ready)).containsEntry("durability-database", "DOWN");
            // The probe is unauthenticated: a fixed reason, not the driver's message (host, port, user, auth).
            assertThat(check(ready, "durability-database").getJsonObject("data"))
                    .isEqualTo(Json.createObjectBuilder()
                            .add("reason", "the database did not answer; the server log has the cause")
                            .build());
            assertThat(ready.body())
                    .doesNotContain(Coordinates.dbHost())
                    .doesNotContain(Integer.toString(Coordinates.dbPort()))
                    .doesNotContainIgnoringCase("connection")
                    .doesNotContain("Exception");
            assertThat(log.lines())
                    .filteredOn(line -> line.contains("Health check durability-database is down"))
                    .isNotEmpty();
        } finally {
            Postgresql.start();
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Http.get(server, "/health/ready").statusCode() == 200);
    }

    /** Each check's status by name; a check listed twice fails the test (docs/decisions/0059-health-checks-listed-once.md). */
    private static Map<String, String> checks(HttpResponse<String> response) {
        return Http.json(response).getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .collect(Collectors.toMap(check -> check.getString("name"), check -> check.getString("status")));
    }

    private static JsonObject check(HttpResponse<String> response, String name) {
        return Http.json(response).getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .filter(check -> check.getString("name").equals(name))
                .findFirst()
                .orElseThrow();
    }
}
