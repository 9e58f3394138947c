package dev.durability.schema.control;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The one Flyway configuration of the library's schema: used at start-up by every server, and by the
 * in-container tests on their own schema, so the tests prove the migrations production applies.
 */
public final class MigrationPlan {
    /** The library's own history table, so an application's Flyway history in the same schema stays its own. */
    public static final String HISTORY_TABLE = "durability_schema_history";

    private MigrationPlan() {}

    public static Flyway forSchema(DataSource dataSource, String schema) {
        return Flyway.configure(MigrationPlan.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(schema)
                .createSchemas(true)
                .table(HISTORY_TABLE)
                // The schema may already hold the application's own tables: start our history at 0, then apply V1.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .locations("classpath:db/migration")
                .validateMigrationNaming(true)
                .load();
    }
}
