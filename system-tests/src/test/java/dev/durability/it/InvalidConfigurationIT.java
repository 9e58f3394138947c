package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bad durability.* value stops the deployment, and the message names the key. One case per way a value
 * reaches a check: a value that does not convert (the library), a value that converts but breaks a feature's
 * rule (each feature's configuration, found at start by ConfigurationCheck), a schema other than the data
 * source's (checked against the database), a database role or broker user without a permission the library needs
 * (docs/grants), and a web module's own setting. Every rule of every key is a unit test of its
 * configuration class (OutboxConfigTest, BrokerConfigTest, ...), which needs no server start.
 *
 * <p>One server of the shared server's configuration serves every case: each case sets its values as the
 * application's properties (Liberty's {@code appProperties}, read through MicroProfile Config above the environment),
 * and Liberty restarts the application when they change. A deployment starts as it would in a new server, in a few
 * seconds instead of a server's start and stop.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvalidConfigurationIT {
    private static final Duration OUTCOME = Duration.ofSeconds(120);

    private LibertyServer server;

    @AfterAll
    void stopServer() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @CsvSource({
        "durability.outbox.lease-seconds, soon",
        // An integer, but shorter than a claim can live with the broker's connect timeout.
        "durability.outbox.lease-seconds, 5",
        // Not a lower-case identifier: the library writes it unquoted before each of its tables.
        "durability.database.schema, Durability-Elsewhere",
        // Neither durability nor cloudevents.
        "durability.envelope.format, xml",
        // A 0.1.0 key in whole days, replaced by an ISO-8601 window (docs/decisions/0092).
        "durability.retention.outbox-days, 7",
        "durability.idempotency.replayed-headers, 'Location,Set-Cookie'",
        // The admin API without a key to verify tokens with: the shipped default location holds none.
        "mp.jwt.verify.publickey.location, /nonexistent/admin-jwt-public-key.pem"
    })
    void invalidValueFailsTheDeploymentNamingTheKey(String key, String value) throws Exception {
        String log = deployWith(Map.of(key, value));
        // CWWKZ0002E (first start) or CWWKZ0004E (restart) when the library's start-up check fails; CWWKZ0012I (not
        // started) or CWWKZ0020I (not updated) when a web module's does
        assertThat(log)
                .containsAnyOf("CWWKZ0002E", "CWWKZ0004E", "CWWKZ0012I", "CWWKZ0020I")
                .contains(key);
        assertThat(Http.get(server.uri(), "/api/orders/" + UUID.randomUUID()).statusCode())
                .isEqualTo(404);
    }

    /** A queue that exists with other arguments than a consumer needs: the start stops, naming the queue and why. */
    @Test
    void aQueueDeclaredWithOtherArgumentsFailsTheDeploymentNamingTheQueue() throws Exception {
        String queue = "mismatch-it.dead-letters";
        try (Amqp amqp = new Amqp()) {
            Channel channel = amqp.channel();
            channel.queueDelete(queue);
            channel.queueDeclare(queue, true, false, false, Map.of("x-max-length", 5));
            try {
                assertThat(refusedDeploymentWith(Map.of("durability.dead-letter.queue", queue)))
                        .contains("RabbitMQ refused to declare queue '" + queue + "'")
                        .contains("inequivalent arg 'x-max-length'");
            } finally {
                channel.queueDelete(queue);
            }
        }
    }

    /**
     * An alternate exchange configured for an events exchange that exists without one: the broker refuses the
     * declaration on every channel, so the start stops with its reason rather than passing it off as an
     * unreachable broker while the server reports ready.
     */
    @Test
    void anAlternateExchangeSetOnAnExistingEventsExchangeFailsTheDeploymentWithTheBrokersReason() throws Exception {
        String exchange = "mismatch-it.events";
        String alternate = "mismatch-it.unroutable";
        try (Amqp amqp = new Amqp()) {
            Channel channel = amqp.channel();
            channel.exchangeDelete(exchange);
            channel.exchangeDeclare(exchange, "topic", true);
            try {
                assertThat(refusedDeploymentWith(Map.of(
                                "durability.broker.events-exchange", exchange,
                                "durability.broker.alternate-exchange", alternate)))
                        .contains("RabbitMQ refused to declare the events exchange '" + exchange + "'")
                        .contains("inequivalent arg 'alternate-exchange'");
            } finally {
                channel.exchangeDelete(exchange);
                channel.exchangeDelete(alternate);
                channel.queueDelete(alternate);
            }
        }
    }

    /**
     * A database role holding every documented grant but one: the start stops naming exactly the missing one, as the
     * GRANT that gives it. The one left out is the least obvious of docs/grants/postgresql.sql: UPDATE on a column of
     * dead_letter_audit, which a triage verdict's FOR KEY SHARE needs although dead letters are never updated.
     */
    @Test
    void aDatabaseRoleLackingAGrantFailsTheDeploymentNamingTheGrant() throws Exception {
        String role = "durability_it_lacking";
        String schema = Coordinates.mainSchema();
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN "
                    + "CREATE ROLE " + role + " LOGIN; END IF; END $$");
        }
        try {
            grant("postgresql.sql", role);
            grant("demo-postgresql.sql", role);
            try (Connection c = OutboxTable.connect();
                    Statement s = c.createStatement()) {
                s.execute("REVOKE UPDATE (id) ON " + schema + ".dead_letter_audit FROM " + role);
            }
            // A property of its own, which nothing reads, makes sure the application restarts with the new user.
            String log = refusedDeploymentWith(
                    Map.of("it.case", "lacking-grant-" + System.nanoTime()),
                    Map.of("db.user", role, "db.password", ""));
            assertThat(log)
                    .contains("The role " + role
                            + " of data source java:app/env/jdbc/durability lacks privileges Durability needs in"
                            + " schema " + schema + ": GRANT UPDATE (id) ON " + schema
                            + ".dead_letter_audit. Grant them"
                            + " as the schema's owner (docs/grants/postgresql.sql");
        } finally {
            try (Connection c = OutboxTable.connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP OWNED BY " + role);
            }
        }
    }

    /**
     * The least-privileged broker user of the shared server, with a dead-letter queue outside the names its
     * permissions cover: the broker refuses the declaration and the start stops naming the queue and the permission.
     */
    @Test
    void aBrokerUserWithoutConfigureOnAQueueFailsTheDeploymentNamingThePermission() throws Exception {
        String queue = "refused-it.dead-letters";
        assertThat(refusedDeploymentWith(Map.of(
                        "durability.broker.username", System.getProperty("it.broker.user"),
                        "durability.broker.password", System.getProperty("it.broker.password"),
                        "durability.dead-letter.queue", queue)))
                .contains("RabbitMQ refused to declare queue '" + queue + "': ACCESS_REFUSED")
                .contains("This service's broker user needs configure on queue '" + queue + "'");
        try (Amqp amqp = new Amqp()) {
            assertThatThrownBy(() -> amqp.channel().queueDeclarePassive(queue))
                    .as("the refused queue was not declared")
                    .isInstanceOf(IOException.class);
        }
    }

    /** Applies one of docs/grants to {@code role} on the shared server's schema, as its documentation says. */
    private static void grant(String script, String role) {
        Commands.run(
                List.of(
                        "psql",
                        "-q",
                        "-X",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-h",
                        Coordinates.dbHost(),
                        "-p",
                        Integer.toString(Coordinates.dbPort()),
                        "-U",
                        Coordinates.dbUser(),
                        "-d",
                        Coordinates.env("DB_NAME", "postgres"),
                        "-v",
                        "schema=" + Coordinates.mainSchema(),
                        "-v",
                        "runtime=" + role,
                        "-f",
                        Path.of(System.getProperty("it.grants.dir"), script).toString()),
                Set.of(0));
    }

    /** The log of a deployment with these properties, which must have failed in the library (CWWKZ0002E/0004E). */
    private String refusedDeploymentWith(Map<String, String> properties) throws IOException {
        return refusedDeploymentWith(properties, Map.of());
    }

    /** As {@link #refusedDeploymentWith(Map)}, with these server variables set too (the data source's user). */
    private String refusedDeploymentWith(Map<String, String> properties, Map<String, String> variables)
            throws IOException {
        String log = deployWith(properties, variables);
        assertThat(log).containsAnyOf("CWWKZ0002E", "CWWKZ0004E");
        return log;
    }

    /**
     * Deploys the application with these properties (starting the server on the first call, restarting the
     * application on later ones) and returns what the server logged until the deployment's outcome, which must
     * not be a started application.
     */
    private String deployWith(Map<String, String> properties) throws IOException {
        return deployWith(properties, Map.of());
    }

    private String deployWith(Map<String, String> properties, Map<String, String> variables) throws IOException {
        boolean first = server == null;
        if (first) {
            // The shared server's least-privileged database role, but the broker's administrator: the cases of
            // queues and exchanges declared with other arguments need a user the broker lets declare them.
            server = LibertyServer.copyOfMain(
                    "durability-badconfig",
                    9192,
                    Map.of(
                            "DURABILITY_BROKER_USERNAME", Coordinates.brokerUser(),
                            "DURABILITY_BROKER_PASSWORD", Coordinates.brokerPassword()));
        }
        ServerLog log = server.logFromNow();
        writeApplicationProperties(properties, variables);
        if (first) {
            server.start();
        }
        await("the outcome of the deployment with " + properties)
                .atMost(OUTCOME)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> outcome(log.text()));
        String text = log.text();
        assertThat(text)
                .as("the application must not start")
                .doesNotContain("CWWKZ0001I: Application durability started")
                .doesNotContain("CWWKZ0003I: The application durability updated");
        return text;
    }

    private static boolean outcome(String log) {
        return List.of("CWWKZ0001I", "CWWKZ0002E", "CWWKZ0003I", "CWWKZ0004E", "CWWKZ0012I", "CWWKZ0020I").stream()
                .anyMatch(log::contains);
    }

    /**
     * The application's properties, and server variables, as one configuration drop-in: Liberty applies a change at
     * once, the variables with the properties whose change restarts the application.
     */
    private void writeApplicationProperties(Map<String, String> properties, Map<String, String> variables)
            throws IOException {
        StringBuilder xml = new StringBuilder("<server>\n");
        variables.forEach((name, value) -> xml.append("  <variable name=\"")
                .append(name)
                .append("\" value=\"")
                .append(value)
                .append("\"/>\n"));
        xml.append("  <enterpriseApplication id=\"durability\">\n    <appProperties>\n");
        new LinkedHashMap<>(properties)
                .forEach((key, value) -> xml.append("      <property name=\"")
                        .append(key)
                        .append("\" value=\"")
                        .append(value)
                        .append("\"/>\n"));
        xml.append("    </appProperties>\n  </enterpriseApplication>\n</server>\n");
        Path dropin = server.directory().resolve("configDropins/overrides/invalid-configuration.xml");
        Files.writeString(dropin, xml.toString());
    }
}
