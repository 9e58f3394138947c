package dev.durability.schema.control;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * The one Flyway configuration of the library's schema: used at start-up by every server, and by the
 * in-container tests on their own schema, so the tests prove the migrations production applies.
 */
public final class MigrationPlan {
    /** The library's own history table, so an application's Flyway history in the same schema stays its own. */
    public static final String HISTORY_TABLE = "durability_schema_history";

    private MigrationPlan() {}

    public static Flyway forSchema(DataSource dataSource, String schema) {
        FluentConfiguration configuration = Flyway.configure(MigrationPlan.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(schema)
                .createSchemas(true)
                .table(HISTORY_TABLE)
                // The schema may already hold the application's own tables: start our history at 0, then apply V1.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .locations("classpath:db/migration")
                .validateMigrationNaming(true);
        // Migrations that build indexes CONCURRENTLY run outside a transaction and wait for every older transaction
        // to end: Flyway's default lock, a transaction held open on its own connection for the whole run, would be
        // waited for forever. A session lock instead (docs/schema.md, "Online migrations").
        configuration
                .getConfigurationExtension(PostgreSQLConfigurationExtension.class)
                .setTransactionalLock(false);
        return configuration.load();
    }
}
