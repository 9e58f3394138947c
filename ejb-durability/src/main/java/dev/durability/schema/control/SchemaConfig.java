package dev.durability.schema.control;

import dev.durability.config.control.FeatureConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Who changes the library's schema: {@code durability.schema.migrate}. On (the default), every server brings the
 * schema to its version at start; off, a database administrator applies the migrations and the servers only
 * check the version (docs/schema.md).
 */
@ApplicationScoped
public class SchemaConfig implements FeatureConfig {
    public static final String MIGRATE = "durability.schema.migrate";

    @Inject
    @ConfigProperty(name = MIGRATE)
    boolean migrate;

    /** Either value is valid; one that is not a boolean already failed its conversion, naming the key. */
    @Override
    public void validate() {}

    public boolean migrate() {
        return migrate;
    }

    @Override
    public String toString() {
        return "schema " + (migrate ? "migrated at start" : "validated only (migrated by its administrator)");
    }
}
