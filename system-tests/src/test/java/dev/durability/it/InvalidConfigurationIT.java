package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bad durability.* value stops the deployment, and the message names the key. One case per way a value
 * reaches a check: a value that does not convert (the library), a value that converts but breaks a feature's
 * rule (each feature's configuration, found at start by ConfigurationCheck), a schema other than the data
 * source's (checked against the database), and a web module's own setting. Every rule of every key is a unit test of its
 * configuration class (OutboxConfigTest, BrokerConfigTest, ...), which needs no server start.
 */
class InvalidConfigurationIT {

    @ParameterizedTest
    @CsvSource({
        "DURABILITY_OUTBOX_LEASE_SECONDS, soon, durability.outbox.lease-seconds",
        // An integer, but shorter than a claim can live with the broker's connect timeout.
        "DURABILITY_OUTBOX_LEASE_SECONDS, 5, durability.outbox.lease-seconds",
        "DURABILITY_DATABASE_SCHEMA, durability_elsewhere, durability.database.schema",
        "DURABILITY_IDEMPOTENCY_REPLAYED_HEADERS, 'Location,Set-Cookie', durability.idempotency.replayed-headers",
        // The admin API without a key to verify tokens with: the shipped default location holds none.
        "MP_JWT_VERIFY_PUBLICKEY_LOCATION, /nonexistent/admin-jwt-public-key.pem, mp.jwt.verify.publickey.location"
    })
    void invalidValueFailsTheDeploymentNamingTheKey(String variable, String value, String key) throws Exception {
        try (LibertyServer server = LibertyServer.copyOfMain("durability-badconfig", 9192, Map.of(variable, value))) {
            server.start();
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> server.messagesLog().contains("CWWKZ0002E")
                            || server.messagesLog().contains("CWWKZ0012I")
                            || server.messagesLog().contains("CWWKZ0001I"));
            String log = server.messagesLog();
            assertThat(log).doesNotContain("CWWKZ0001I: Application durability started");
            // CWWKZ0002E when the library's start-up check fails; CWWKZ0012I (not started) when a web module's does
            assertThat(log).containsAnyOf("CWWKZ0002E", "CWWKZ0012I").contains(key);
            assertThat(Http.get(server.uri(), "/api/orders/" + java.util.UUID.randomUUID())
                            .statusCode())
                    .isEqualTo(404);
        }
    }

    /** A queue that exists with other arguments than a consumer needs: the start stops, naming the queue and why. */
    @Test
    void aQueueDeclaredWithOtherArgumentsFailsTheDeploymentNamingTheQueue() throws Exception {
        String queue = "mismatch-it.dead-letters";
        try (Amqp amqp = new Amqp()) {
            Channel channel = amqp.channel();
            channel.queueDelete(queue);
            channel.queueDeclare(queue, true, false, false, Map.of("x-max-length", 5));
            try (LibertyServer server = LibertyServer.copyOfMain(
                    "durability-badconfig", 9192, Map.of("DURABILITY_DEAD_LETTER_QUEUE", queue))) {
                server.start();
                assertThat(logOfRefusedDeployment(server))
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
            try (LibertyServer server = LibertyServer.copyOfMain(
                    "durability-badconfig",
                    9192,
                    Map.of(
                            "DURABILITY_BROKER_EVENTS_EXCHANGE",
                            exchange,
                            "DURABILITY_BROKER_ALTERNATE_EXCHANGE",
                            alternate))) {
                server.start();
                assertThat(logOfRefusedDeployment(server))
                        .contains("RabbitMQ refused to declare the events exchange '" + exchange + "'")
                        .contains("inequivalent arg 'alternate-exchange'");
            } finally {
                channel.exchangeDelete(exchange);
                channel.exchangeDelete(alternate);
                channel.queueDelete(alternate);
            }
        }
    }

    /** The server's log once the application's start ended, which must have failed (CWWKZ0002E). */
    private static String logOfRefusedDeployment(LibertyServer server) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> server.messagesLog().contains("CWWKZ0002E")
                        || server.messagesLog().contains("CWWKZ0001I"));
        String log = server.messagesLog();
        assertThat(log)
                .doesNotContain("CWWKZ0001I: Application durability started")
                .contains("CWWKZ0002E");
        return log;
    }
}
