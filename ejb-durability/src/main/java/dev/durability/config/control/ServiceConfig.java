package dev.durability.config.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Who this service is, and where its tables live: {@code durability.service-name}, {@code durability.instance-name}, {@code durability.database.schema}. */
@ApplicationScoped
public class ServiceConfig {
    public static final String SERVICE_NAME = "durability.service-name";
    public static final String INSTANCE_NAME = "durability.instance-name";
    public static final String SCHEMA = "durability.database.schema";
    /**
     * The label naming the service on every {@code durability_*} series, as in the envelope: many services on
     * one Prometheus keep their figures and alerts apart (docs/decisions/0071-service-label-on-every-metric.md).
     */
    public static final String METRIC_LABEL = "source_service";
    /**
     * The library's data source: a resource reference the application declares (a {@code resource-ref} of its
     * application.xml) and its deployer binds to any data source (a {@code lookup-name} there, or server.xml's
     * {@code application-bnd}); unbound, Liberty links it to {@code jdbc/durability}
     * (docs/decisions/0091-resources-by-reference.md).
     */
    public static final String DATA_SOURCE = "java:app/env/jdbc/durability";
    /**
     * What the library's statements write before each of their tables, replaced by the configured schema: they
     * never depend on the data source's {@code search_path}, which stays the application's.
     */
    public static final String SCHEMA_TOKEN = "{schema}";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    /**
     * PostgreSQL's reserved key words (reserved, and reserved but allowed as a function or type name: categories R
     * and T of {@code pg_get_keywords()} in PostgreSQL 15, and 16's {@code system_user}), which no statement may
     * write unquoted before a table.
     */
    private static final Set<String> RESERVED = Set.of(
            "all",
            "analyse",
            "analyze",
            "and",
            "any",
            "array",
            "as",
            "asc",
            "asymmetric",
            "authorization",
            "binary",
            "both",
            "case",
            "cast",
            "check",
            "collate",
            "collation",
            "column",
            "concurrently",
            "constraint",
            "create",
            "cross",
            "current_catalog",
            "current_date",
            "current_role",
            "current_schema",
            "current_time",
            "current_timestamp",
            "current_user",
            "default",
            "deferrable",
            "desc",
            "distinct",
            "do",
            "else",
            "end",
            "except",
            "false",
            "fetch",
            "for",
            "foreign",
            "freeze",
            "from",
            "full",
            "grant",
            "group",
            "having",
            "ilike",
            "in",
            "initially",
            "inner",
            "intersect",
            "into",
            "is",
            "isnull",
            "join",
            "lateral",
            "leading",
            "left",
            "like",
            "limit",
            "localtime",
            "localtimestamp",
            "natural",
            "not",
            "notnull",
            "null",
            "offset",
            "on",
            "only",
            "or",
            "order",
            "outer",
            "overlaps",
            "placing",
            "primary",
            "references",
            "returning",
            "right",
            "select",
            "session_user",
            "similar",
            "some",
            "symmetric",
            "system_user",
            "table",
            "tablesample",
            "then",
            "to",
            "trailing",
            "true",
            "union",
            "unique",
            "user",
            "using",
            "variadic",
            "verbose",
            "when",
            "where",
            "window",
            "with");

    @Inject
    @ConfigProperty(name = SERVICE_NAME)
    Optional<String> serviceName;

    @Inject
    @ConfigProperty(name = INSTANCE_NAME)
    Optional<String> instanceName;

    @Inject
    @ConfigProperty(name = SCHEMA)
    String schema;

    public void validate() {
        InvalidConfigurationException.check(
                serviceName.isPresent(),
                SERVICE_NAME,
                "",
                "is required: it is the source_service of every event this service stages");
        InvalidConfigurationException.check(
                NAME.matcher(serviceName.get()).matches(),
                SERVICE_NAME,
                serviceName.get(),
                "must be 1-100 characters of letters, digits, '.', '_' or '-'");
        instanceName.ifPresent(name -> InvalidConfigurationException.check(
                NAME.matcher(name).matches(),
                INSTANCE_NAME,
                name,
                "must be 1-100 characters of letters, digits, '.', '_' or '-'"));
        requireSchemaName(schema);
    }

    /** Refuses a schema name the library could not write unquoted before its tables. */
    public static String requireSchemaName(String schema) {
        InvalidConfigurationException.check(
                SCHEMA_NAME.matcher(schema).matches(), SCHEMA, schema, "must be a lower-case PostgreSQL identifier");
        InvalidConfigurationException.check(
                !RESERVED.contains(schema),
                SCHEMA,
                schema,
                "is a reserved word of PostgreSQL: every statement names the schema unquoted, choose another name");
        return schema;
    }

    /** The statement with its tables in {@code schema}. */
    public static String qualify(String sql, String schema) {
        return sql.replace(SCHEMA_TOKEN, schema);
    }

    /** The statement with its tables in the configured schema. */
    public String qualify(String sql) {
        return qualify(sql, schema);
    }

    public String serviceName() {
        return serviceName.orElseThrow(() -> new InvalidConfigurationException(SERVICE_NAME, "", "is required"));
    }

    /** Names this server in claims and logs; defaults to the JVM's {@code pid@host}. */
    public String instanceName() {
        return instanceName.orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());
    }

    public String schema() {
        return schema;
    }
}
