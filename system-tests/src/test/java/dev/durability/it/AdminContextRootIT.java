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
 * The admin WAR under a context root and an application name of a deployer's choosing (docs/liberty.md): the shared
 * server gets, for this class only, a second application holding the library and the admin WAR (the reference EAR
 * without the demo) named {@code ops-console}, its admin WAR at {@code /ops/durability-admin}, configured as an
 * adopter's server.xml would: its own enterpriseApplication with the role mapping, and durability.admin.api-paths
 * listing its API so that the server reads bearer tokens there. Its consumers are off and its drain has an instance
 * name of its own, so the shared server's tests see nothing of it once it is removed after the class.
 */
class AdminContextRootIT {
    private static final String APPLICATION = "ops-console";
    private static final String CONTEXT_ROOT = "/ops/durability-admin";
    private static final Path SERVER = Path.of(Coordinates.mainServerDir());
    private static final Path DROPIN = SERVER.resolve("configDropins/overrides/it-ops-console.xml");
    private static final Path EAR = SERVER.resolve("it-ops-console/ops-console.ear");

    private final URI https = Coordinates.mainServerHttps();
    private final AdminTables tables = new AdminTables(Coordinates.mainSchema());

    @BeforeAll
    static void deployTheAdminWarUnderAnotherContextRootAndName() throws Exception {
        writeEarWithoutDemo(EAR, CONTEXT_ROOT);
        ServerLog log = ServerLog.ofMainServerFromNow();
        Files.writeString(DROPIN, """
                <server>
                  <variable name="durability.admin.api-paths" value="/admin/events/|%s/events/"/>
                  <enterpriseApplication id="itOpsConsole" name="%s" location="%s">
                    <classloader commonLibraryRef="postgresql" apiTypeVisibility="+third-party"/>
                    <appProperties>
                      <property name="durability.inbox.enabled" value="false"/>
                      <property name="durability.instance-name" value="it-ops-console"/>
                    </appProperties>
                    <application-bnd>
                      <security-role name="durability-admin">
                        <group id="opsAdminRegistryGroup" name="${admin.group}"/>
                        <group id="opsAdminTokenGroup" name="${admin.group}"
                               access-id="group:${admin.jwt.issuer}/${admin.group}"/>
                      </security-role>
                    </application-bnd>
                  </enterpriseApplication>
                </server>
                """.formatted(CONTEXT_ROOT, APPLICATION, EAR));
        await("application " + APPLICATION + " started on the shared server")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    String text = log.text();
                    if (text.contains("CWWKZ0002E")
                            || text.contains("CWWKZ0004E")
                            || text.contains("CWWKZ0012I: The application " + APPLICATION + " was not started")) {
                        throw new AssertionError("application " + APPLICATION + " failed to start:\n" + text);
                    }
                    return text.contains("CWWKZ0001I: Application " + APPLICATION + " started");
                });
    }

    @AfterAll
    static void removeIt() throws Exception {
        ServerLog log = ServerLog.ofMainServerFromNow();
        if (Files.deleteIfExists(DROPIN)) {
            await("application " + APPLICATION + " removed from the shared server")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> log.text().contains("CWWKZ0009I: The application " + APPLICATION + " has stopped"));
        }
        Files.deleteIfExists(EAR);
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
        Path ear = SERVER.resolve("it-ops-console/unlisted.ear");
        Path dropin = SERVER.resolve("configDropins/overrides/it-ops-unlisted.xml");
        writeEarWithoutDemo(ear, unlisted);
        ServerLog log = ServerLog.ofMainServerFromNow();
        try {
            Files.writeString(dropin, """
                    <server>
                      <enterpriseApplication id="itOpsUnlisted" name="ops-unlisted" location="%s">
                        <classloader commonLibraryRef="postgresql" apiTypeVisibility="+third-party"/>
                        <appProperties>
                          <property name="durability.inbox.enabled" value="false"/>
                          <property name="durability.instance-name" value="it-ops-unlisted"/>
                        </appProperties>
                      </enterpriseApplication>
                    </server>
                    """.formatted(ear));
            await("application ops-unlisted refused")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> log.text().contains("CWWKZ0012I: The application ops-unlisted was not started"));
            assertThat(log.text())
                    .doesNotContain("CWWKZ0001I: Application ops-unlisted started")
                    .contains("durability.admin.api-paths (server.xml variable, or environment variable"
                            + " DURABILITY_ADMIN_API_PATHS) is /admin/events/|" + CONTEXT_ROOT + "/events/, which does"
                            + " not list " + unlisted + "/events/");
        } finally {
            ServerLog removal = ServerLog.ofMainServerFromNow();
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
        Path reference = SERVER.resolve("apps/durability.ear");
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
