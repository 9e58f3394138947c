package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/**
 * A broker reached over TLS only ({@code durability.broker.tls=true}): the server trusts the broker's certificate
 * through its own outbound TLS configuration (Liberty's, a trust store the deployment names) and publishes with
 * confirms as over plain AMQP
 * (docs/decisions/0075-broker-addresses-tls-and-credentials.md). The broker is a node of its own with a TLS
 * listener alone and a certificate made for the test.
 */
class BrokerTlsIT {
    private static final String SCHEMA = "durability_broker_tls";
    private static final int TLS_PORT = 5691;
    private static final String TRUST_PASSWORD = "broker-trust";

    @Test
    void aServerPublishesToABrokerThatSpeaksTlsOnlyTrustingItThroughItsOwnTlsConfiguration() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Path certificates = Files.createTempDirectory("durability-broker-tls");
        Path certificate = certificates.resolve("broker.pem");
        Path key = certificates.resolve("broker.key");
        Commands.run(
                List.of(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-days",
                        "2",
                        "-subj",
                        "/CN=localhost",
                        "-addext",
                        "subjectAltName=DNS:localhost",
                        "-keyout",
                        key.toString(),
                        "-out",
                        certificate.toString()),
                Set.of(0));
        Path trustStore = certificates.resolve("broker-trust.p12");
        Commands.run(
                List.of(
                        "keytool",
                        "-importcert",
                        "-noprompt",
                        "-alias",
                        "broker",
                        "-file",
                        certificate.toString(),
                        "-keystore",
                        trustStore.toString(),
                        "-storetype",
                        "PKCS12",
                        "-storepass",
                        TRUST_PASSWORD),
                Set.of(0));
        Commands.run(List.of("chmod", "-R", "a+rX", certificates.toString()), Set.of(0));

        try (RabbitmqNode broker = RabbitmqNode.start(
                        "durability-tls",
                        25691,
                        List.of(
                                "listeners.tcp = none",
                                "listeners.ssl.default = 127.0.0.1:" + TLS_PORT,
                                "ssl_options.cacertfile = " + certificate,
                                "ssl_options.certfile = " + certificate,
                                "ssl_options.keyfile = " + key,
                                "ssl_options.verify = verify_none",
                                "ssl_options.fail_if_no_peer_cert = false"));
                LibertyServer server = trustingServer("localhost", trustStore)) {
            server.start();
            server.awaitApplicationStarted();
            assertThat(server.messagesLog()).contains("Connected to RabbitMQ at 127.0.0.1:" + TLS_PORT + "/ over TLS");
            placeAnOrderAndReceiveItsEventOverTls(server, trustStore);
        }
    }

    /**
     * A server on its own schema whose broker is the TLS node at {@code host}, with the deployment's outbound TLS
     * configuration: a trust store that holds the broker's certificate.
     */
    private static LibertyServer trustingServer(String host, Path trustStore) throws Exception {
        LibertyServer server = LibertyServer.copyOfMain(
                "durability-broker-tls",
                9189,
                Map.of(
                        "DB_SCHEMA",
                        SCHEMA,
                        "DURABILITY_INSTANCE_NAME",
                        "it-broker-tls",
                        "DURABILITY_BROKER_ADDRESSES",
                        host + ":" + TLS_PORT,
                        "DURABILITY_BROKER_TLS",
                        "true"));
        Files.copy(trustStore, server.directory().resolve("broker-trust.p12"));
        Files.writeString(
                server.directory().resolve("configDropins/overrides/broker-tls.xml"), """
                <server>
                  <featureManager><feature>transportSecurity-1.0</feature></featureManager>
                  <keyStore id="brokerTrust" location="${server.config.dir}/broker-trust.p12" type="PKCS12"
                            password="%s"/>
                  <ssl id="brokerOutbound" keyStoreRef="defaultKeyStore" trustStoreRef="brokerTrust"/>
                  <sslDefault outboundSSLRef="brokerOutbound"/>
                </server>
                """.formatted(TRUST_PASSWORD));
        return server;
    }

    private static void placeAnOrderAndReceiveItsEventOverTls(LibertyServer server, Path trustStore) throws Exception {
        try (Connection connection = tlsFactory(trustStore).newConnection("system-test over TLS")) {
            Channel channel = connection.createChannel();
            String queue = channel.queueDeclare().getQueue();
            channel.queueBind(queue, "durability.events", "order.placed");

            HttpResponse<String> placed =
                    Http.postKeyedOrder(server.uri(), UUID.randomUUID().toString(), "tls-" + UUID.randomUUID());
            assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
            String orderId = Http.json(placed).getString("id");

            GetResponse delivered = await("the order's event over TLS")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> channel.basicGet(queue, true), response -> response != null);
            assertThat(new String(delivered.getBody(), StandardCharsets.UTF_8)).contains(orderId);
            assertThat(new ConsumerTables(SCHEMA)
                            .count("event_outbox", "aggregate_id = ?::uuid AND published_at IS NOT NULL", orderId))
                    .as("stamped published after the broker's confirm")
                    .isEqualTo(1);
        }
    }

    /** The test's own client, trusting the broker's certificate. */
    private static ConnectionFactory tlsFactory(Path trustStore) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            trusted.load(in, TRUST_PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.2");
        context.init(null, trust.getTrustManagers(), null);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("localhost");
        factory.setPort(TLS_PORT);
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.useSslProtocol(context);
        factory.enableHostnameVerification();
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }
}
