package dev.durability.it;

import java.net.URI;

/** Where the services under test are: environment variables with localhost defaults, as the server reads them. */
final class Coordinates {
    private Coordinates() {}

    static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    static String jdbcUrl() {
        return "jdbc:postgresql://" + dbHost() + ":" + dbPort() + "/" + env("DB_NAME", "postgres");
    }

    static String dbHost() {
        return env("DB_HOST", "localhost");
    }

    static int dbPort() {
        return Integer.parseInt(env("DB_PORT", "5432"));
    }

    static String dbUser() {
        return env("DB_USER", "postgres");
    }

    static String dbPassword() {
        return env("DB_PASSWORD", "");
    }

    static String brokerHost() {
        return env("DURABILITY_BROKER_HOST", "localhost");
    }

    static int brokerPort() {
        return Integer.parseInt(env("DURABILITY_BROKER_PORT", "5672"));
    }

    static String brokerUser() {
        return env("DURABILITY_BROKER_USERNAME", "guest");
    }

    static String brokerPassword() {
        return env("DURABILITY_BROKER_PASSWORD", "guest");
    }

    /** The schema of the module's shared server (system property set by failsafe). */
    static String mainSchema() {
        return System.getProperty("it.db.schema", "durability_it");
    }

    static URI mainServer() {
        return URI.create("http://localhost:" + System.getProperty("it.http.port", "9180"));
    }

    /** The shared server's HTTPS port: the admin pages and API answer there only (docs/admin.md). */
    static URI mainServerHttps() {
        return URI.create("https://localhost:" + System.getProperty("it.https.port", "9543"));
    }

    static String mainServerDir() {
        return System.getProperty("it.server.dir");
    }
}
