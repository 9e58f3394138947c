package dev.durability.demo.orders.boundary;

import dev.durability.config.control.ServiceConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The demo domain's own tables, migrated at start-up with their own Flyway history so the library's
 * history stays the library's. Bean-managed transactions: Flyway commits each migration itself.
 */
@Startup
@Singleton
@TransactionManagement(TransactionManagementType.BEAN)
public class DemoSchema {

    @Resource(lookup = "jdbc/durability")
    DataSource dataSource;

    @Inject
    ServiceConfig service;

    @PostConstruct
    void migrate() {
        Flyway.configure(DemoSchema.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(service.schema())
                .createSchemas(true)
                .table("demo_schema_history")
                // The library's tables share the schema: start this history at version 0, then apply V1.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .locations("classpath:db/demo")
                .load()
                .migrate();
    }
}
