package dev.durability.schema.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.Query;
import jakarta.persistence.QueryHint;
import jakarta.persistence.metamodel.Type;

/**
 * The library's named statements with their tables in the configured schema. Each feature declares its
 * statements on its entity with {@code {schema}.} before every table; an annotation cannot know the deployer's
 * schema, so at start each is registered again under its own name with the schema written in, replacing the
 * declared one (docs/decisions/0091-resources-by-reference.md). Until then a declared statement fails on its
 * token instead of reaching whatever table the session's {@code search_path} finds first (a token inside a string
 * literal, an advisory-lock key, does not fail: that statement locks a key of no schema).
 */
public final class NamedStatements {

    private NamedStatements() {}

    /** Registers every named native statement of the unit's entities, qualified; returns how many. */
    public static int qualify(EntityManagerFactory units, String schema) {
        int registered = 0;
        EntityManager em = units.createEntityManager();
        try {
            for (Class<?> entity : units.getMetamodel().getEntities().stream()
                    .map(Type::getJavaType)
                    .toList()) {
                for (NamedNativeQuery statement : entity.getAnnotationsByType(NamedNativeQuery.class)) {
                    units.addNamedQuery(statement.name(), qualified(em, statement, schema));
                    registered++;
                }
            }
        } finally {
            em.close();
        }
        return registered;
    }

    private static Query qualified(EntityManager em, NamedNativeQuery statement, String schema) {
        String sql = ServiceConfig.qualify(statement.query(), schema);
        Query query;
        if (!statement.resultSetMapping().isEmpty()) {
            query = em.createNativeQuery(sql, statement.resultSetMapping());
        } else if (statement.resultClass() != void.class) {
            query = em.createNativeQuery(sql, statement.resultClass());
        } else {
            query = em.createNativeQuery(sql);
        }
        for (QueryHint hint : statement.hints()) {
            query.setHint(hint.name(), hint.value());
        }
        return query;
    }
}
