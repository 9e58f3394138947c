package dev.durability.it;

import java.net.URI;

/** Where the services under test are: environment variables with localhost defaults, as the server reads them. */
public final class Coordinates {
    private Coordinates() {}

    public static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public static String jdbcUrl() {
        return "jdbc:postgresql://" + dbHost() + ":" + dbPort() + "/" + env("DB_NAME", "postgres");
    }

    public static String dbHost() {
        return env("DB_HOST", "localhost");
    }

    public static int dbPort() {
        return Integer.parseInt(env("DB_PORT", "5432"));
    }

    public static String dbUser() {
        return env("DB_USER", "postgres");
    }

    public static String dbPassword() {
        return env("DB_PASSWORD", "");
    }

    public static String brokerHost() {
        return env("DURABILITY_BROKER_HOST", "localhost");
    }

    public static int brokerPort() {
        return Integer.parseInt(env("DURABILITY_BROKER_PORT", "5672"));
    }

    public static String brokerUser() {
        return env("DURABILITY_BROKER_USERNAME", "guest");
    }

    public static String brokerPassword() {
        return env("DURABILITY_BROKER_PASSWORD", "guest");
    }

    /** The schema of the module's shared server (system property set by failsafe). */
    public static String mainSchema() {
        return System.getProperty("it.db.schema", "durability_it");
    }

    public static URI mainServer() {
        return URI.create("http://localhost:" + System.getProperty("it.http.port", "9180"));
    }

    /** The shared server's HTTPS port: the admin pages and API answer there only (docs/admin.md). */
    public static URI mainServerHttps() {
        return URI.create("https://localhost:" + System.getProperty("it.https.port", "9543"));
    }

    public static String mainServerDir() {
        return System.getProperty("it.server.dir");
    }
}
