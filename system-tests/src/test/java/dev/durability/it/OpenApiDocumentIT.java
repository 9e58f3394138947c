package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The API description the development profile serves at {@code /openapi}: named, with the schemes a generated
 * client needs to authenticate, and clean under a standard linter (Redocly CLI's recommended rules, with the
 * repository's redocly.yaml). See docs/admin.md and docs/demo.md.
 */
class OpenApiDocumentIT {
    /** Pinned: a newer Redocly may add rules, which should be a change of this line, not a red build. */
    static final String REDOCLY_CLI = "@redocly/cli@2.77.0";

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch");

    private final URI server = Coordinates.mainServer();

    @Test
    void theServedDocumentPassesTheLinterWithoutErrorsOrWarnings() throws Exception {
        // Kept in target/ to lint again or read after a failure.
        Path document = Path.of("target", "openapi.json").toAbsolutePath();
        Files.writeString(document, fetch().toString());

        JsonObject report = lint(document);

        JsonObject totals = report.getJsonObject("totals");
        assertThat(totals.getInt("errors") + totals.getInt("warnings"))
                .as("Redocly's findings on %s:\n%s", document, findings(report))
                .isZero();
    }

    @Test
    void theDocumentNamesTheApiAndItsLicense() {
        JsonObject info = fetch().getJsonObject("info");

        assertThat(info.getString("title")).isEqualTo("Durability reference service API");
        assertThat(info.getJsonObject("license").getString("name")).isEqualTo("Apache-2.0");
    }

    /** A generated client sends credentials only where the document says an operation needs them. */
    @Test
    void everyOperationRequiresTheSchemeItsApiAuthenticatesWith() {
        JsonObject document = fetch();
        JsonObject schemes = document.getJsonObject("components").getJsonObject("securitySchemes");
        JsonObject bearer = schemes.getJsonObject("adminBearer");
        assertThat(List.of(bearer.getString("type"), bearer.getString("scheme"), bearer.getString("bearerFormat")))
                .containsExactly("http", "bearer", "JWT");
        assertThat(schemes.getJsonObject("ordersBasic").getString("type")).isEqualTo("http");
        assertThat(schemes.getJsonObject("ordersBasic").getString("scheme")).isEqualTo("basic");

        Map<String, List<String>> requirements = new TreeMap<>();
        JsonObject paths = document.getJsonObject("paths");
        for (String path : paths.keySet()) {
            JsonObject item = paths.getJsonObject(path);
            for (String method : item.keySet()) {
                if (!METHODS.contains(method)) {
                    continue;
                }
                JsonObject operation = item.getJsonObject(method);
                List<String> names = (operation.containsKey("security")
                                ? operation.getJsonArray("security")
                                : JsonValue.EMPTY_JSON_ARRAY)
                        .stream()
                                .flatMap(requirement -> requirement.asJsonObject().keySet().stream())
                                .toList();
                requirements.put(method.toUpperCase(Locale.ROOT) + " " + path, names);
            }
        }
        assertThat(requirements)
                .containsOnly(
                        Map.entry("POST /admin/events/replay", List.of("adminBearer")),
                        Map.entry("GET /admin/events/replay/jobs/{id}", List.of("adminBearer")),
                        Map.entry("DELETE /admin/events/replay/jobs/{id}", List.of("adminBearer")),
                        Map.entry("POST /api/orders", List.of("ordersBasic")),
                        Map.entry("POST /api/orders/bulk", List.of("ordersBasic")),
                        Map.entry("GET /api/orders/{id}", List.of("ordersBasic")));
    }

    /**
     * Both modules write the same Problem schema (META-INF/openapi.yaml of each), so the merge keeps one; should
     * the copies drift, Liberty renames one and a client gets two problem types.
     */
    @Test
    void bothApisAnswerProblemsOfOneSchema() {
        JsonObject schemas = fetch().getJsonObject("components").getJsonObject("schemas");

        assertThat(schemas.keySet())
                .filteredOn(name -> name.toLowerCase(Locale.ROOT).contains("problem"))
                .containsExactly("Problem");
    }

    private JsonObject fetch() {
        HttpResponse<String> response = Http.send(HttpRequest.newBuilder(server.resolve("/openapi"))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .GET()
                .build());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.createReader(new StringReader(response.body())).readObject();
    }

    /**
     * Runs the pinned Redocly CLI through npx (node and npm: README, Prerequisites; npx keeps the package in
     * ~/.npm after the first run) with the repository's redocly.yaml, and returns its JSON report.
     */
    private static JsonObject lint(Path document) throws IOException, InterruptedException {
        Path config = Path.of(System.getProperty("it.redocly.config", "../redocly.yaml"));
        File report = File.createTempFile("redocly", ".json");
        File log = File.createTempFile("redocly", ".log");
        try {
            ProcessBuilder command = new ProcessBuilder(
                            "npx",
                            "--yes",
                            REDOCLY_CLI,
                            "lint",
                            "--config",
                            config.toAbsolutePath().toString(),
                            "--format=json",
                            document.toString())
                    .redirectOutput(report)
                    .redirectError(log);
            command.environment().put("REDOCLY_TELEMETRY", "off");
            command.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
            command.environment().put("NO_COLOR", "1");
            Process process;
            try {
                process = command.start();
            } catch (IOException e) {
                throw new AssertionError("npx is needed by this test (node and npm: see README, Prerequisites)", e);
            }
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the linter did not finish in 180 s: " + Files.readString(log.toPath()));
            }
            String json = Files.readString(report.toPath());
            // Exit code 1 means errors were found; the report lists them. Anything else without a report failed.
            if (!json.stripLeading().startsWith("{")) {
                throw new AssertionError("the linter exited " + process.exitValue() + " without a report: "
                        + Files.readString(log.toPath()));
            }
            return Json.createReader(new StringReader(json)).readObject();
        } finally {
            Files.deleteIfExists(report.toPath());
            Files.deleteIfExists(log.toPath());
        }
    }

    private static String findings(JsonObject report) {
        List<String> lines = new ArrayList<>();
        for (JsonValue value : report.getJsonArray("problems")) {
            JsonObject problem = value.asJsonObject();
            String where = problem.getJsonArray("location").stream()
                    .map(location -> location.asJsonObject().getString("pointer", "?"))
                    .collect(Collectors.joining(", "));
            lines.add(problem.getString("severity") + " " + problem.getString("ruleId") + " at " + where + ": "
                    + problem.getString("message"));
        }
        return String.join("\n", lines);
    }
}
