package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * What the reference deployment ships (liberty-config/server.xml) for the admin pages and API, against what only
 * the development profile (ear/src/dev/liberty, which the run command and the test servers add) may relax. The test
 * servers run with the development profile, so the shipped settings are read here rather than observed.
 */
class ShippedConfigurationIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path SHIPPED = ROOT.resolve("liberty-config/server.xml");
    /** What any server running the library needs, and what the admin WAR adds: included by SHIPPED. */
    private static final Path LIBRARY = ROOT.resolve("liberty-config/durability-library.xml");

    private static final Path ADMIN = ROOT.resolve("liberty-config/durability-admin.xml");
    private static final Path DEV = ROOT.resolve("ear/src/dev/liberty");

    /**
     * The test servers observe these settings ({@link AdminAccessIT}): the development profile relaxes none of them,
     * so what they observe is what ships.
     */
    @Test
    void sessionAndSingleSignOnCookiesTravelOnlyOverHttpsInTheDevelopmentProfileToo() throws Exception {
        Document shipped = parse(SHIPPED);
        assertThat(only(shipped, "webAppSecurity").getAttribute("ssoRequiresSSL"))
                .isEqualTo("true");
        assertThat(only(shipped, "httpSession").getAttribute("cookieSecure")).isEqualTo("true");
        assertThat(shippedFeatures()).contains("transportSecurity-1.0");

        for (Path dropin : devDropins()) {
            Document dev = parse(dropin);
            for (String tag : List.of("webAppSecurity", "httpSession", "httpEndpoint")) {
                assertThat(dev.getElementsByTagName(tag).getLength())
                        .as(dropin + ": " + tag)
                        .isZero();
            }
        }
    }

    /** The deployment brings its certificate: nothing that ships holds a keystore, its password or a key. */
    @Test
    void noKeystoreShips() throws Exception {
        for (Path file : List.of(SHIPPED, LIBRARY, ADMIN)) {
            assertThat(parse(file).getElementsByTagName("keyStore").getLength())
                    .as(file.toString())
                    .isZero();
            assertThat(Files.readString(file)).doesNotContain("keystore_password");
        }
        try (Stream<Path> files = Files.walk(SHIPPED.getParent())) {
            assertThat(files.map(Path::getFileName).map(Path::toString))
                    .noneMatch(name -> name.endsWith(".p12") || name.endsWith(".jks") || name.endsWith(".pem"));
        }
    }

    /** The development key's private half is in this repository: it must never sit where production looks. */
    @Test
    void theDevelopmentKeyIsNeverAtTheShippedKeyLocation() throws Exception {
        String shippedLocation = variable(parse(ADMIN), "mp.jwt.verify.publickey.location");
        assertThat(shippedLocation).startsWith("${server.config.dir}/");
        String relative = shippedLocation.substring("${server.config.dir}/".length());
        // The run command copies ear/src/dev/liberty into the server's configuration folder.
        assertThat(DEV.resolve(relative)).doesNotExist();
        assertThat(Path.of(Coordinates.mainServerDir()).resolve(relative)).doesNotExist();

        String devLocation = variable(
                parse(DEV.resolve("configDropins/overrides/dev-server.xml")), "mp.jwt.verify.publickey.location");
        assertThat(devLocation).isNotEqualTo(shippedLocation).startsWith("${server.config.dir}/dev-keys/");
        assertThat(DEV.resolve(devLocation.substring("${server.config.dir}/".length())))
                .exists();
    }

    /** /openapi would answer anyone on the public port and describe the admin API: only development serves it. */
    @Test
    void openApiIsServedByTheDevelopmentProfileOnly() throws Exception {
        assertThat(shippedFeatures()).isNotEmpty().noneMatch(feature -> feature.startsWith("mpOpenAPI"));
        for (Path file : List.of(SHIPPED, LIBRARY, ADMIN)) {
            assertThat(parse(file).getElementsByTagName("mpOpenAPI").getLength())
                    .as(file.toString())
                    .isZero();
        }
        assertThat(features(parse(DEV.resolve("configDropins/overrides/dev-server.xml"))))
                .anyMatch(feature -> feature.startsWith("mpOpenAPI"));
    }

    /** Each service's admin API has an audience of its own: a token for one opens no other. */
    @Test
    void theAdminTokensAudienceIsTheServicesOwn() throws Exception {
        assertThat(variable(parse(ADMIN), "admin.jwt.audience")).isEqualTo("${durability.service-name}.admin");
    }

    /**
     * The includes an adopter's server.xml pulls in hold what the library and the admin WAR need and nothing that
     * changes how the server treats other applications, beyond what docs/liberty.md lists for the admin include (the
     * default MicroProfile JWT instance restricted to the admin API's paths); the reference deployment's server-wide
     * choices are in its own server.xml, which includes both. docs/decisions/0085-liberty-include-and-reference-server.md.
     */
    @Test
    void theIncludesHoldNoServerWideChoiceOfTheReferenceDeployment() throws Exception {
        List<String> serverWide = List.of(
                "httpEndpoint",
                "httpSession",
                "webAppSecurity",
                "mpMetrics",
                "applicationMonitor",
                "enterpriseApplication",
                "application",
                "webApplication",
                "basicRegistry",
                "ltpa",
                "sslDefault",
                "ssl");
        for (Path include : List.of(LIBRARY, ADMIN)) {
            Document document = parse(include);
            for (String tag : serverWide) {
                assertThat(document.getElementsByTagName(tag).getLength())
                        .as(include.getFileName() + ": " + tag)
                        .isZero();
            }
        }
        // The database's name and credentials are the deployment's: the library's include has no default for them.
        assertThat(Files.readString(LIBRARY)).doesNotContain("name=\"db.user\"", "name=\"db.password\"");
        Document shipped = parse(SHIPPED);
        var includes = shipped.getElementsByTagName("include");
        List<String> locations = new java.util.ArrayList<>();
        for (int i = 0; i < includes.getLength(); i++) {
            locations.add(((Element) includes.item(i)).getAttribute("location"));
        }
        assertThat(locations).containsExactly("durability-library.xml", "durability-admin.xml");
        for (String tag : List.of("httpEndpoint", "httpSession", "webAppSecurity", "mpMetrics", "applicationMonitor")) {
            assertThat(shipped.getElementsByTagName(tag).getLength())
                    .as("server.xml: " + tag)
                    .isEqualTo(1);
        }
        // The admin API's token path follows a variable the admin WAR checks at start (AdminApiPath).
        assertThat(only(parse(ADMIN), "requestUrl").getAttribute("urlPattern"))
                .isEqualTo("${durability.admin.api-paths}");
        assertThat(variable(parse(ADMIN), "durability.admin.api-paths")).isEqualTo("/admin/events/");
    }

    private static List<String> shippedFeatures() throws Exception {
        List<String> features = new java.util.ArrayList<>();
        for (Path file : List.of(SHIPPED, LIBRARY, ADMIN)) {
            features.addAll(features(parse(file)));
        }
        return features;
    }

    private static List<Path> devDropins() throws Exception {
        try (Stream<Path> files = Files.list(DEV.resolve("configDropins/overrides"))) {
            return files.filter(file -> file.toString().endsWith(".xml"))
                    .sorted()
                    .toList();
        }
    }

    private static Document parse(Path file) throws Exception {
        assertThat(file).exists();
        try (var in = Files.newInputStream(file)) {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
    }

    private static Element only(Document document, String tag) {
        assertThat(document.getElementsByTagName(tag).getLength()).as(tag).isEqualTo(1);
        return (Element) document.getElementsByTagName(tag).item(0);
    }

    private static java.util.List<String> features(Document document) {
        var features = document.getElementsByTagName("feature");
        java.util.List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < features.getLength(); i++) {
            names.add(features.item(i).getTextContent().trim());
        }
        return names;
    }

    private static String variable(Document document, String name) {
        var variables = document.getElementsByTagName("variable");
        for (int i = 0; i < variables.getLength(); i++) {
            Element variable = (Element) variables.item(i);
            if (variable.getAttribute("name").equals(name)) {
                return variable.getAttribute("defaultValue");
            }
        }
        throw new AssertionError("no variable " + name);
    }
}
