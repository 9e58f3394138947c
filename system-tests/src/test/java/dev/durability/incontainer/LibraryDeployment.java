package dev.durability.incontainer;

import com.fasterxml.uuid.Generators;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.broker.control.TopologyRefused;
import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import dev.durability.config.control.ServiceConfig;
import dev.durability.deadletter.control.DeadLetterRoutingKey;
import dev.durability.deadletter.control.DeadLetterWrapper;
import dev.durability.deadletter.control.MessageContent;
import dev.durability.deadletter.control.OccurrenceToken;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.InboxConsumer;
import dev.durability.inbox.PermanentFailure;
import dev.durability.inbox.boundary.InboxListener;
import dev.durability.inbox.boundary.InboxTransactions;
import dev.durability.inbox.control.ConfirmedSend;
import dev.durability.inbox.control.ConsumerDeclaration;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.inbox.control.InboxMetrics;
import dev.durability.inbox.control.QueueTopology;
import dev.durability.inbox.control.RetryPolicy;
import dev.durability.inbox.entity.InboxEntry;
import dev.durability.outbox.OutboxStager;
import dev.durability.outbox.boundary.JtaOutboxStager;
import dev.durability.outbox.control.Claim;
import dev.durability.outbox.control.DrainWakeUp;
import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.control.PublishOutcome;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.schema.control.MigrationPlan;
import dev.durability.schema.control.NamedStatements;
import dev.durability.schema.control.SchemaQualifier;
import dev.durability.tracing.control.MessagingSpans;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;
import org.assertj.core.api.Assertions;
import org.flywaydb.core.Flyway;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The smallest WAR that holds the library's staging and claiming beans (not its timers or start-up
 * beans), on a data source whose schema belongs to the in-container tests alone.
 */
final class LibraryDeployment {
    static final String DATA_SOURCE = "jdbc/durability-incontainer";
    static final String SCHEMA = "durability_incontainer";

    private LibraryDeployment() {}

    static WebArchive create(String name, Class<?>... tests) {
        WebArchive war = ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(tests)
                .addClass(LibraryDeployment.class)
                .addPackage(EventEnvelope.class.getPackage())
                .addPackage(EnvelopeJson.class.getPackage())
                .addClass("dev.durability.outbox.boundary.StagingRefused")
                .addClasses(
                        OutboxStager.class,
                        JtaOutboxStager.class,
                        ServiceConfig.class,
                        FeatureConfig.class,
                        InvalidConfigurationException.class,
                        // The outbox's configuration checks its lease against the broker's connect timeout; the
                        // broker's parses its addresses with the RabbitMQ client (its jar below).
                        BrokerConfig.class)
                .addPackage(OutboxEvent.class.getPackage())
                // Staging and consuming make spans: the WAR brings the OpenTelemetry API, which a deployment that
                // does not see mpTelemetry's needs, and then traces nothing (no OpenTelemetry bean of its types).
                .addPackage(MessagingSpans.class.getPackage())
                // Every entity the shipped persistence unit lists.
                .addPackage(InboxEntry.class.getPackage())
                .addPackage(DeadLetter.class.getPackage())
                .addClasses(
                        OutboxClaims.class,
                        DrainWakeUp.class,
                        OutboxConfig.class,
                        Claim.class,
                        PublishOutcome.class,
                        PublishOutcome.Result.class,
                        MigrationPlan.class)
                .addAsLibraries(
                        jarOf(com.rabbitmq.client.Address.class),
                        jarOf(org.slf4j.LoggerFactory.class),
                        jarOf(Generators.class),
                        jarOf(Flyway.class),
                        jarOf(Assertions.class),
                        jarOf(PostgreSQLConfigurationExtension.class),
                        jarOf(io.opentelemetry.api.OpenTelemetry.class),
                        jarOf(io.opentelemetry.context.Context.class),
                        // The API's ComponentLoader lives here since 1.5x.
                        jarOf(io.opentelemetry.common.ComponentLoader.class))
                // The shipped configuration, with the library's tables in the tests' own schema.
                .addAsResource(
                        new StringAsset(shipped("META-INF/microprofile-config.properties") + "\n" + ServiceConfig.SCHEMA
                                + "=" + SCHEMA + "\n"),
                        "META-INF/microprofile-config.properties")
                // The shipped persistence unit as it is: its data source reference bound to the tests' own data
                // source as an adopter binds it, the named statements qualified at start as SchemaMigration does.
                .addAsResource(new StringAsset(shipped("META-INF/persistence.xml")), "META-INF/persistence.xml")
                .addClasses(SchemaQualifier.class, NamedStatements.class, QualifiedAtStart.class)
                .setWebXML(new StringAsset("""
                        <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                          <resource-ref>
                            <res-ref-name>%s</res-ref-name>
                            <res-type>javax.sql.DataSource</res-type>
                            <lookup-name>%s</lookup-name>
                          </resource-ref>
                        </web-app>
                        """.formatted(ServiceConfig.DATA_SOURCE, DATA_SOURCE)))
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml");
        addMigrations(war);
        return war;
    }

    /**
     * The library WAR plus the inbox's listener, transactions, topology and sends (not its supervisor or
     * any start-up bean): tests open the consuming channels themselves, with handlers of their own.
     */
    static WebArchive createWithInbox(String name, Class<?>... tests) {
        return create(name, tests)
                .addClasses(
                        InboxListener.class,
                        InboxTransactions.class,
                        InboxTransactions.Processing.class,
                        InboxTransactions.Processing.Result.class,
                        InboxTransactions.Failure.class,
                        EventHandler.class,
                        PermanentFailure.class,
                        InboxConsumer.class,
                        InboxConsumer.QueueType.class,
                        ConsumerDeclaration.class,
                        InboxConfig.class,
                        RetryPolicy.class,
                        RetryPolicy.Next.class,
                        QueueTopology.class,
                        TopologyRefused.class,
                        ConfirmedSend.class,
                        InboxMetrics.class,
                        BrokerConnection.class,
                        DeadLetterRoutingKey.class,
                        DeadLetterWrapper.class,
                        MessageContent.class,
                        OccurrenceToken.class)
                .addAsLibraries(jarOf(org.awaitility.Awaitility.class), jarOf(org.hamcrest.Matcher.class));
    }

    /** The durability-resources module as the build resolved it: its jar, or its classes folder in an IDE. */
    private static void addMigrations(WebArchive war) {
        URL marker = LibraryDeployment.class.getClassLoader().getResource("db/migration/flyway.location");
        if (marker == null) {
            throw new IllegalStateException("durability-resources (db/migration) is not on the test classpath");
        }
        try {
            if (marker.getProtocol().equals("jar")) {
                String jar = marker.getPath().substring(0, marker.getPath().indexOf("!/"));
                war.addAsLibraries(new File(new URL(jar).toURI()));
            } else {
                File folder = new File(marker.toURI()).getParentFile();
                for (File file : Objects.requireNonNull(folder.listFiles())) {
                    war.addAsResource(file, "db/migration/" + file.getName());
                }
            }
        } catch (URISyntaxException | MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The library's migrations applied to the tests' own schema, then every outbox row removed. */
    static void freshOutbox(DataSource dataSource) throws SQLException {
        MigrationPlan.forSchema(dataSource, SCHEMA).migrate();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + SCHEMA + ".event_outbox");
        }
    }

    private static String shipped(String resource) {
        try (InputStream xml = OutboxEvent.class.getClassLoader().getResourceAsStream(resource)) {
            return new String(
                    Objects.requireNonNull(xml, "ejb-durability's " + resource).readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** All rows of one table of the tests' schema. */
    static long countRows(DataSource dataSource, String table) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + SCHEMA + "." + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Rows of the tests' outbox matching a condition whose {@code ?} placeholders take these parameters. */
    static long count(DataSource dataSource, String where, Object... parameters) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT count(*) FROM " + SCHEMA + ".event_outbox WHERE " + where)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static File jarOf(Class<?> type) {
        try {
            return new File(
                    type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
