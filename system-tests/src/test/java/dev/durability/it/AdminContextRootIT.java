package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import dev.durability.it.AdminTables.State;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin WAR under a context root and an application name of a deployer's choosing (docs/liberty.md): a server
 * of its own (the shared server's copy, on a schema of its own) runs, instead of the reference EAR, that EAR
 * without the demo as application {@code ops-console}, its admin WAR at {@code /ops/durability-admin}, with
 * DURABILITY_ADMIN_API_PATHS listing that WAR's API alone, as an adopter's server would set it, on a data source
 * of another JNDI name that the library's reference is bound to. Not the shared
 * server: a second copy of the library there shares its metric names, and removing it unregisters the shared
 * server's own gauges.
 */
class AdminContextRootIT {
    private static final String APPLICATION = "ops-console";
    private static final String CONTEXT_ROOT = "/ops/durability-admin";
    private static final String SCHEMA = "durability_ops_console";
    private static final String DATA_SOURCE = "jdbc/ops-console";

    private static LibertyServer server;
    private static URI https;

    private final AdminTables tables = new AdminTables(SCHEMA);

    @BeforeAll
    static void deployTheAdminWarUnderAnotherContextRootAndName() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        server = LibertyServer.copyOfMain(
                "durability-ops-console",
                9183,
                Map.of(
                        "DB_SCHEMA",
                        SCHEMA,
                        "DURABILITY_INSTANCE_NAME",
                        "it-ops-console",
                        "DURABILITY_ADMIN_API_PATHS",
                        CONTEXT_ROOT + "/events/"));
        https = server.httpsUri();
        Path ear = server.directory().resolve("apps/ops-console.ear");
        writeEarWithoutDemo(ear, CONTEXT_ROOT);
        // The reference application's element, renamed and pointed at the other EAR: its role mapping is an
        // adopter's (docs/liberty.md). Its data source is the adopter's too: another JNDI name, no schema of its
        // own on the connections, the library's reference bound to it; and jdbc/durability renamed away, so the
        // application cannot start unless every use of the library's data source follows the binding.
        Files.writeString(server.directory().resolve("configDropins/overrides/ops-console.xml"), """
                <server>
                  <dataSource id="durability" jndiName="jdbc/not-for-ops-console"/>
                  <dataSource id="opsConsole" jndiName="%s" type="javax.sql.ConnectionPoolDataSource"
                              isolationLevel="TRANSACTION_READ_COMMITTED">
                    <jdbcDriver libraryRef="postgresql"/>
                    <properties.postgresql serverName="${db.host}" portNumber="${db.port}" databaseName="${db.name}"
                                           user="${db.user}" password="${db.password}" stringType="unspecified"
                                           reWriteBatchedInserts="true" ApplicationName="ops-console"/>
                  </dataSource>
                  <enterpriseApplication id="durability" name="%s" location="%s">
                    <application-bnd>
                      <resource-ref name="java:app/env/jdbc/durability" binding-name="%s"/>
                    </application-bnd>
                  </enterpriseApplication>
                </server>
                """.formatted(
                        DATA_SOURCE, APPLICATION, ear, DATA_SOURCE));
        server.start();
        await("application " + APPLICATION + " started")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    String text = server.messagesLog();
                    if (text.contains("CWWKZ0002E")
                            || text.contains("CWWKZ0004E")
                            || text.contains("CWWKZ0012I: The application " + APPLICATION + " was not started")) {
                        throw new AssertionError("application " + APPLICATION + " failed to start:\n" + text);
                    }
                    return text.contains("CWWKZ0001I: Application " + APPLICATION + " started");
                });
    }

    @AfterAll
    static void stopIt() throws Exception {
        if (server != null) {
            server.close();
        }
        OutboxTable.dropSchema(SCHEMA);
    }

    @Test
    void anOperatorSignsInAndEveryLinkAndFormOfTheStatusPageStaysUnderItsContextRoot() throws Exception {
        AdminHttp operator = new AdminHttp(https, CONTEXT_ROOT);
        HttpResponse<String> signedIn = operator.signIn("operator", "operator-demo");
        assertThat(signedIn.uri().getPath()).startsWith(CONTEXT_ROOT + "/");
        assertThat(signedIn.body()).contains(AdminHttp.SIGNED_IN).contains("id=\"outbox-depth\"");

        HttpResponse<String> status = operator.get(CONTEXT_ROOT + "/");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains(AdminHttp.SIGNED_IN).contains("id=\"outbox-depth\"");
        List<String> targets = targets(status.body());
        assertThat(targets)
                .contains(CONTEXT_ROOT + "/replay.xhtml", CONTEXT_ROOT + "/dead-letters.xhtml")
                .allSatisfy(target -> assertThat(target).startsWith(CONTEXT_ROOT + "/"));
        assertThat(operator.get(CONTEXT_ROOT + "/replay.xhtml").body()).contains(AdminHttp.SIGNED_IN);
        // The request-failed page's way back leads to this status page, not the reference deployment's.
        assertThat(operator.get(CONTEXT_ROOT + "/error.html").body()).contains("href=\"./\"");
    }

    @Test
    void theApiUnderItsContextRootTakesABearerTokenAndOnlyThat() throws Exception {
        OffsetDateTime from = OffsetDateTime.now(ZoneOffset.UTC)
                .minusDays(7)
                .minusSeconds(UUID.randomUUID().hashCode() & 0xffff)
                .truncatedTo(ChronoUnit.SECONDS);
        String type = "ctx" + UUID.randomUUID().toString().substring(0, 8) + ".placed";
        EventEnvelope published = OutboxTable.envelopes(type, 1).get(0);
        tables.seedOutbox(published, from.plusSeconds(1), State.PUBLISHED);
        String path = CONTEXT_ROOT + "/events/replay?from=" + from + "&to=" + from.plusMinutes(1) + "&event_type="
                + type + "&dry_run=true";

        HttpResponse<String> withToken = Http.send(HttpRequest.newBuilder(https.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + AdminTokens.admin("ctx-root-it"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(200);
        JsonObject counted = Http.json(withToken);
        assertThat(counted.getInt("matched")).isEqualTo(1);
        assertThat(counted.getInt("restaged")).isZero();

        // A signed-in operator's browser session is refused there: by the server, which reads a token on this path,
        // and by the API itself on a spelling of the path that escapes the server's match, naming this API's path.
        AdminHttp browser = new AdminHttp(https, CONTEXT_ROOT);
        assertThat(browser.signIn("operator", "operator-demo").body()).contains(AdminHttp.SIGNED_IN);
        String query = path.substring(path.indexOf('?'));
        for (String spelling : List.of(CONTEXT_ROOT + "/events/replay", CONTEXT_ROOT + "/%65vents/replay")) {
            HttpResponse<String> withSession = browser.send(HttpRequest.newBuilder(https.resolve(spelling + query))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build());
            assertThat(withSession.statusCode()).as(spelling).isEqualTo(401);
            assertThat(withSession.headers().firstValue("WWW-Authenticate"))
                    .as(spelling)
                    .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Bearer"));
            if (spelling.contains("%65")) {
                assertThat(Http.json(withSession).getString("detail")).contains(" at " + CONTEXT_ROOT + "/events/...");
            }
        }

        HttpResponse<String> anotherService = Http.send(HttpRequest.newBuilder(https.resolve(path))
                .header("Authorization", "Bearer " + AdminTokens.forAudience("ctx-root-it", "billing.admin"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        assertThat(anotherService.statusCode()).isEqualTo(401);
    }

    /**
     * A deployer who moves the admin WAR without listing its API in durability.admin.api-paths gets an admin WAR that
     * does not start, and a log that names the variable and the path to add, instead of an API refusing every token.
     */
    @Test
    void anAdminWarWhoseApiTheServerWouldNotReadTokensOnDoesNotStartAndSaysWhy() throws Exception {
        String unlisted = "/ops/unlisted-admin";
        Path ear = server.directory().resolve("apps/unlisted.ear");
        Path dropin = server.directory().resolve("configDropins/overrides/it-ops-unlisted.xml");
        writeEarWithoutDemo(ear, unlisted);
        ServerLog log = server.logFromNow();
        try {
            Files.writeString(dropin, """
                    <server>
                      <enterpriseApplication id="itOpsUnlisted" name="ops-unlisted" location="%s">
                        <classloader commonLibraryRef="postgresql" apiTypeVisibility="+third-party"/>
                        <application-bnd>
                          <resource-ref name="java:app/env/jdbc/durability" binding-name="%s"/>
                        </application-bnd>
                        <appProperties>
                          <property name="durability.inbox.enabled" value="false"/>
                          <property name="durability.instance-name" value="it-ops-unlisted"/>
                        </appProperties>
                      </enterpriseApplication>
                    </server>
                    """.formatted(ear, DATA_SOURCE));
            await("application ops-unlisted refused")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> log.text().contains("CWWKZ0012I: The application ops-unlisted was not started"));
            assertThat(log.text())
                    .doesNotContain("CWWKZ0001I: Application ops-unlisted started")
                    .contains("durability.admin.api-paths (server.xml variable, or environment variable"
                            + " DURABILITY_ADMIN_API_PATHS) is " + CONTEXT_ROOT + "/events/, which does"
                            + " not list " + unlisted + "/events/");
        } finally {
            ServerLog removal = server.logFromNow();
            if (Files.deleteIfExists(dropin)) {
                await("configuration without ops-unlisted")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> removal.text().contains("CWWKG0017I"));
            }
            Files.deleteIfExists(ear);
        }
    }

    /** Every link, form, stylesheet and script address of a page. */
    private static List<String> targets(String page) {
        Matcher matcher = Pattern.compile("(?:href|action|src)=\"([^\"#]+)").matcher(page);
        List<String> targets = new ArrayList<>();
        while (matcher.find()) {
            targets.add(matcher.group(1).replace("&amp;", "&"));
        }
        return targets;
    }

    /** The reference EAR without the demo's web module, its admin WAR at this context root. */
    private static void writeEarWithoutDemo(Path target, String contextRoot) throws IOException {
        Path reference = server.directory().resolve("apps/durability.ear");
        Files.createDirectories(target.getParent());
        try (ZipFile in = new ZipFile(reference.toFile());
                OutputStream file = Files.newOutputStream(target);
                ZipOutputStream out = new ZipOutputStream(file)) {
            for (ZipEntry entry : in.stream().toList()) {
                if (entry.getName().equals("war-demo.war")) {
                    continue;
                }
                out.putNextEntry(new ZipEntry(entry.getName()));
                try (InputStream content = in.getInputStream(entry)) {
                    if (entry.getName().equals("META-INF/application.xml")) {
                        out.write(
                                applicationXml(new String(content.readAllBytes(), StandardCharsets.UTF_8), contextRoot)
                                        .getBytes(StandardCharsets.UTF_8));
                    } else {
                        content.transferTo(out);
                    }
                }
                out.closeEntry();
            }
        }
    }

    private static String applicationXml(String reference, String contextRoot) {
        String withoutDemo =
                reference.replaceAll("(?s)<module>\\s*<web>\\s*<web-uri>war-demo\\.war</web-uri>.*?</module>", "");
        String moved = withoutDemo.replace(
                "<context-root>/admin</context-root>", "<context-root>" + contextRoot + "</context-root>");
        assertThat(moved).doesNotContain("war-demo.war").contains("<context-root>" + contextRoot + "</context-root>");
        return moved;
    }
}
