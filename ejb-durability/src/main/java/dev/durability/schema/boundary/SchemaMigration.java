package dev.durability.schema.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.schema.control.MigrationPlan;
import dev.durability.schema.control.NamedStatements;
import dev.durability.schema.control.RuntimeGrants;
import dev.durability.schema.control.SchemaConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.output.ValidateResult;

/**
 * Brings the schema to the version this build expects, at start-up, on every server; or, when its administrator
 * migrates it ({@code durability.schema.migrate=false}), checks that it is at that version. Flyway serializes
 * concurrent servers with a PostgreSQL advisory lock, refuses a migration whose checksum changed after
 * release, and a failure here fails the application's start: no server runs against a schema it does
 * not know. Bean-managed transactions: Flyway commits each migration itself.
 */
@Startup
@Singleton
@DependsOn("ConfigurationCheck")
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigration {
    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    @PersistenceUnit(unitName = "durability")
    EntityManagerFactory units;

    @Inject
    ServiceConfig service;

    @Inject
    SchemaConfig config;

    @PostConstruct
    void migrate() {
        try (Connection connection = dataSource.getConnection()) {
            requireUntypedStrings(connection);
            warnWithoutAutovacuum(connection);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Data source " + ServiceConfig.DATA_SOURCE + " is not usable: " + e.getMessage(), e);
        }
        Flyway flyway = MigrationPlan.forSchema(dataSource, service.schema());
        if (config.migrate()) {
            MigrateResult result = flyway.migrate();
            LOG.info(() -> "Durability schema " + service.schema() + " at version " + result.targetSchemaVersion + " ("
                    + result.migrationsExecuted + " migrations applied now)");
        } else {
            requireCurrentVersion(flyway);
        }
        requireRuntimeGrants();
        int statements = NamedStatements.qualify(units, service.schema());
        LOG.fine(() -> statements + " named statements qualified with schema " + service.schema());
    }

    /**
     * A role without one of the privileges the library uses would start and then fail some later request,
     * a retention run or an admin action: refuse the start instead, naming every GRANT it lacks
     * (docs/grants/postgresql.sql, docs/decisions/0079-least-privilege-tested.md).
     */
    private void requireRuntimeGrants() {
        try (Connection connection = dataSource.getConnection()) {
            List<RuntimeGrants.Grant> missing = RuntimeGrants.missing(connection, service.schema());
            if (!missing.isEmpty()) {
                throw new IllegalStateException("The role " + currentUser(connection)
                        + " of data source " + ServiceConfig.DATA_SOURCE
                        + " lacks privileges Durability needs in schema "
                        + service.schema() + ": "
                        + missing.stream()
                                .map(grant -> grant.statement(service.schema()))
                                .collect(Collectors.joining("; "))
                        + ". Grant them as the schema's owner (docs/grants/postgresql.sql,"
                        + " docs/operations.md#least-privileges)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "The privileges of data source " + ServiceConfig.DATA_SOURCE + " could not be checked: "
                            + e.getMessage(),
                    e);
        }
    }

    private static String currentUser(Connection connection) throws SQLException {
        try (PreparedStatement who = connection.prepareStatement("SELECT current_user");
                ResultSet rs = who.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Validate only: the schema's administrator applies the migrations (docs/schema.md), and a server of this
     * release refuses to run on a schema that lacks any of them, naming the version it found and the one it
     * needs, or whose applied migrations differ from this release's.
     */
    private void requireCurrentVersion(Flyway flyway) {
        MigrationInfoService info = flyway.info();
        String needed = Arrays.stream(info.all())
                .map(MigrationInfo::getVersion)
                .filter(Objects::nonNull)
                .max(Comparator.naturalOrder())
                .map(Object::toString)
                .orElse("none");
        MigrationInfo current = info.current();
        String found = current == null || current.getVersion() == null
                ? "none (no history table " + MigrationPlan.HISTORY_TABLE + ")"
                : current.getVersion().toString();
        if (info.pending().length > 0) {
            throw new IllegalStateException("Durability schema " + service.schema() + " is at version " + found
                    + "; this release needs version " + needed + ", and " + SchemaConfig.MIGRATE
                    + " is false, so the servers do not migrate it: apply the release's migrations (docs/schema.md)"
                    + " or set " + SchemaConfig.MIGRATE + "=true");
        }
        ValidateResult validation = flyway.validateWithResult();
        if (!validation.validationSuccessful) {
            throw new IllegalStateException("Durability schema " + service.schema() + " at version " + found
                    + " differs from this release's migrations: " + validation.getAllErrorMessages());
        }
        LOG.info(() -> "Durability schema " + service.schema() + " at version " + found + ", validated ("
                + SchemaConfig.MIGRATE + "=false: its administrator migrates it)");
    }

    /**
     * Every published outbox row leaves a dead tuple behind, in the table and in the claim indexes the drain walks;
     * without vacuum they pile up and claims slow down, hour after hour. Not a reason to refuse to start (a
     * database may be vacuumed on a schedule instead), but one for a warning an operator sees at every start.
     */
    private static void warnWithoutAutovacuum(Connection connection) throws SQLException {
        try (PreparedStatement show = connection.prepareStatement("SELECT current_setting('autovacuum')");
                ResultSet rs = show.executeQuery()) {
            rs.next();
            if ("off".equals(rs.getString(1))) {
                LOG.warning("PostgreSQL runs with autovacuum off: every published outbox row leaves a dead tuple in"
                        + " event_outbox and in the indexes the drain's claims walk, and claims slow down as they pile"
                        + " up. Turn autovacuum on, or VACUUM event_outbox, event_inbox and idempotency_responses on a"
                        + " schedule (docs/operations.md, Vacuum).");
            }
        }
    }

    /**
     * The library binds envelope JSON as a string parameter into a {@code jsonb} column, which PostgreSQL
     * accepts only when the driver sends strings untyped. A data source without that setting would fail
     * every business transaction that stages an event; fail the start instead, saying how to fix it.
     */
    private void requireUntypedStrings(Connection connection) {
        try (PreparedStatement probe = connection.prepareStatement("SELECT CAST('{}' AS jsonb) = ?")) {
            probe.setString(1, "{}");
            probe.executeQuery().close();
        } catch (SQLException e) {
            if ("42883".equals(e.getSQLState())) { // operator does not exist: jsonb = character varying
                throw new IllegalStateException(
                        "Data source " + ServiceConfig.DATA_SOURCE + " must set the PostgreSQL driver property "
                                + "stringType=unspecified (in server.xml: <properties.postgresql stringType=\"unspecified\" .../>): "
                                + e.getMessage(),
                        e);
            }
            throw new IllegalStateException(
                    "Data source " + ServiceConfig.DATA_SOURCE + " is not usable: " + e.getMessage(), e);
        }
    }
}
