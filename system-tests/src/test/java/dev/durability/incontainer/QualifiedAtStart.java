package dev.durability.incontainer;

import dev.durability.schema.control.NamedStatements;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;

/**
 * What SchemaMigration does for the library's named statements at start, in a test WAR that has no start-up
 * beans of the library's: their tables written in the tests' own schema.
 */
@Startup
@Singleton
public class QualifiedAtStart {
    @PersistenceUnit(unitName = "durability")
    EntityManagerFactory units;

    @PostConstruct
    void qualify() {
        NamedStatements.qualify(units, LibraryDeployment.SCHEMA);
    }
}
