package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.schema.control.MigrationPlan;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;

/**
 * A schema its administrator migrates ({@code durability.schema.migrate=false}, docs/schema.md): a server of this
 * release refuses a schema that lacks its newest migration, naming the version found and the one needed, and
 * changes nothing; once the administrator applied the release's migrations, the server starts on it and works.
 */
class SchemaValidateOnlyIT {
    private static final String SCHEMA = "durability_validate_only";

    @Test
    void aServerThatDoesNotMigrateRefusesAnOlderSchemaAndRunsOnceItIsMigrated() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Flyway release = MigrationPlan.forSchema(OutboxTable.dataSource(), SCHEMA);
        MigrationVersion newest = Arrays.stream(release.info().all())
                .map(MigrationInfo::getVersion)
                .filter(Objects::nonNull)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        MigrationVersion previous = Arrays.stream(release.info().all())
                .map(MigrationInfo::getVersion)
                .filter(v -> v != null && v.isNewerThan(MigrationVersion.fromVersion("0")) && newest.isNewerThan(v))
                .max(Comparator.naturalOrder())
                .orElseThrow();
        // The previous release's schema, as its administrator left it.
        Flyway.configure()
                .configuration(release.getConfiguration())
                .target(previous)
                .load()
                .migrate();

        try (LibertyServer server = LibertyServer.copyOfMain(
                "durability-validate-only",
                9193,
                Map.of(
                        "DB_SCHEMA", SCHEMA,
                        "DURABILITY_SCHEMA_MIGRATE", "false",
                        "DURABILITY_INSTANCE_NAME", "it-validate-only"))) {
            server.start();
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> server.messagesLog().contains("CWWKZ0002E")
                            || server.messagesLog().contains("CWWKZ0001I"));
            assertThat(server.messagesLog())
                    .doesNotContain("CWWKZ0001I: Application durability started")
                    .contains("Durability schema " + SCHEMA + " is at version " + previous
                            + "; this release needs version " + newest)
                    .contains("durability.schema.migrate");
            assertThat(release.info().current().getVersion())
                    .as("the refused server changed nothing")
                    .isEqualTo(previous);
            // The administrator applies this release's migrations (docs/schema.md), and the demo's own with the
            // demo's settings (docs/operations.md, least privileges), and restarts the application.
            release.migrate();
            Flyway.configure()
                    .dataSource(OutboxTable.dataSource())
                    .schemas(SCHEMA)
                    .table("demo_schema_history")
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .locations("filesystem:" + System.getProperty("it.demo.migrations"))
                    .load()
                    .migrate();
            server.restartApplication();
            assertThat(server.messagesLog()).contains("at version " + newest + ", validated");
            assertThat(Http.postKeyedOrder(
                                    server.uri(), UUID.randomUUID().toString(), "validate-only-" + UUID.randomUUID())
                            .statusCode())
                    .isEqualTo(201);
        }
    }
}
