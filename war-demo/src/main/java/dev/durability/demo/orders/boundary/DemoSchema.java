package dev.durability.demo.orders.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.schema.control.NamedStatements;
import dev.durability.schema.control.SchemaConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;
import java.util.Arrays;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.output.ValidateResult;

/**
 * The demo domain's own tables, migrated at start-up with their own Flyway history so the library's
 * history stays the library's; with {@code durability.schema.migrate=false} their administrator migrates
 * them as well (docs/grants/demo-postgresql.sql) and the start only checks them. Bean-managed transactions:
 * Flyway commits each migration itself.
 */
@Startup
@Singleton
@TransactionManagement(TransactionManagementType.BEAN)
public class DemoSchema {
    private static final String HISTORY_TABLE = "demo_schema_history";

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    @PersistenceUnit(unitName = "demo")
    EntityManagerFactory units;

    @Inject
    ServiceConfig service;

    @Inject
    SchemaConfig schema;

    @PostConstruct
    void migrate() {
        Flyway flyway = Flyway.configure(DemoSchema.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(service.schema())
                .createSchemas(true)
                .table(HISTORY_TABLE)
                // The library's tables share the schema: start this history at version 0, then apply V1.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .locations("classpath:db/demo")
                .load();
        if (schema.migrate()) {
            flyway.migrate();
        } else {
            requireCurrentVersion(flyway);
        }
        NamedStatements.qualify(units, service.schema());
    }

    private void requireCurrentVersion(Flyway flyway) {
        // A role that may not create tables cannot migrate them: refuse to run on demo tables it does not know.
        MigrationInfoService info = flyway.info();
        if (info.pending().length > 0) {
            MigrationInfo current = info.current();
            throw new IllegalStateException("The demo's tables in schema " + service.schema() + " are at version "
                    + (current == null ? "none" : current.getVersion()) + " with migrations "
                    + Arrays.stream(info.pending())
                            .map(pending -> "V" + pending.getVersion())
                            .toList()
                    + " pending, and " + SchemaConfig.MIGRATE + " is false: apply db/demo of the demo WAR like the"
                    + " library's migrations (docs/schema.md), history table " + HISTORY_TABLE);
        }
        ValidateResult validation = flyway.validateWithResult();
        if (!validation.validationSuccessful) {
            throw new IllegalStateException("The demo's tables in schema " + service.schema()
                    + " differ from its migrations: " + validation.getAllErrorMessages());
        }
    }
}
