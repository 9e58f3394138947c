package dev.durability.schema.control;

import dev.durability.config.control.ServiceConfig;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.persistence.config.SessionCustomizer;
import org.eclipse.persistence.sessions.Session;

/**
 * Puts the library's entities in the configured schema ({@code durability.database.schema}), so that what JPA
 * writes for them names their tables whatever the data source's {@code search_path}: that belongs to the
 * application whose data source it is (docs/decisions/0091-resources-by-reference.md). The persistence unit
 * names this class ({@code eclipselink.session.customizer}); EclipseLink calls it before its first login, outside
 * CDI, so it reads the schema from MicroProfile Config itself. The named statements get theirs from
 * {@link NamedStatements}.
 */
public class SchemaQualifier implements SessionCustomizer {

    @Override
    public void customize(Session session) {
        String schema = ServiceConfig.requireSchemaName(ConfigProvider.getConfig(SchemaQualifier.class.getClassLoader())
                .getValue(ServiceConfig.SCHEMA, String.class));
        session.getLogin().setTableQualifier(schema);
    }
}
