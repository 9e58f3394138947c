package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
