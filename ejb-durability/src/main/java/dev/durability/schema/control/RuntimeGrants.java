package dev.durability.schema.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every PostgreSQL privilege the library's runtime role uses in its schema, and the check that it holds
 * them. The list is docs/grants/postgresql.sql's, statement for statement (a unit test compares the two), so
 * a server whose role lacks one refuses to start naming the GRANT, instead of failing one request in a
 * thousand at run time (docs/decisions/0079-least-privilege-tested.md).
 */
public final class RuntimeGrants {

    /** What a privilege is on: PostgreSQL checks each kind with its own function. */
    public enum Kind {
        SCHEMA,
        TABLE,
        COLUMN,
        SEQUENCE
    }

    /**
     * One privilege on one object of the library's schema; {@code column} only for {@link Kind#COLUMN}, {@code
     * object} empty for {@link Kind#SCHEMA}.
     */
    public record Grant(Kind kind, String object, String column, String privilege) {

        /** As the GRANT statement of docs/grants/postgresql.sql that gives it reads, for the schema named. */
        public String statement(String schema) {
            return switch (kind) {
                case SCHEMA -> "GRANT " + privilege + " ON SCHEMA " + schema;
                case TABLE -> "GRANT " + privilege + " ON " + schema + "." + object;
                case COLUMN -> "GRANT " + privilege + " (" + column + ") ON " + schema + "." + object;
                case SEQUENCE -> "GRANT " + privilege + " ON SEQUENCE " + schema + "." + object;
            };
        }
    }

    /** The privileges, table by table, with why each is used. */
    public static final List<Grant> REQUIRED = Stream.of(
                    List.of(new Grant(Kind.SCHEMA, "", null, "USAGE")),
                    // validate-only start reads the applied migrations; the health check reads them too
                    table("durability_schema_history", "SELECT"),
                    // staged, claimed, stamped, re-staged by replays, pruned
                    table("event_outbox", "SELECT", "INSERT", "UPDATE", "DELETE"),
                    // dedup records: inserted, marked processed or dead-lettered, pruned
                    table("event_inbox", "SELECT", "INSERT", "UPDATE", "DELETE"),
                    // append-only; pruned; a triage verdict locks its letter FOR KEY SHARE, which needs UPDATE on a
                    // column
                    table("dead_letter_audit", "SELECT", "INSERT", "DELETE"),
                    List.of(new Grant(Kind.COLUMN, "dead_letter_audit", "id", "UPDATE")),
                    table("dead_letter_triage", "SELECT", "INSERT"),
                    table("admin_audit", "SELECT", "INSERT"),
                    // replay jobs: started, worked slice by slice, cancelled; kept
                    table("replay_job", "SELECT", "INSERT", "UPDATE"),
                    // the idempotency filter's records: claimed, finalized, renewed, pruned
                    table("idempotency_responses", "SELECT", "INSERT", "UPDATE", "DELETE"),
                    // nextval() numbers each claim of a key, fencing a lapsed claim's late writes
                    List.of(new Grant(Kind.SEQUENCE, "idempotency_claim_generation", null, "USAGE")))
            .flatMap(List::stream)
            .toList();

    private RuntimeGrants() {}

    /** The privileges of {@link #REQUIRED} that the connection's role does not hold, in the list's order. */
    public static List<Grant> missing(Connection connection, String schema) throws SQLException {
        List<Grant> missing = new ArrayList<>();
        for (Grant grant : REQUIRED) {
            if (!holds(connection, schema, grant)) {
                missing.add(grant);
            }
        }
        return missing;
    }

    private static boolean holds(Connection connection, String schema, Grant grant) throws SQLException {
        String qualified = quote(schema) + "." + quote(grant.object());
        String sql = switch (grant.kind()) {
            case SCHEMA -> "SELECT has_schema_privilege(?, ?)";
            case TABLE -> "SELECT has_table_privilege(?, ?)";
            case COLUMN -> "SELECT has_column_privilege(?, ?, ?)";
            case SEQUENCE -> "SELECT has_sequence_privilege(?, ?)";
        };
        try (PreparedStatement check = connection.prepareStatement(sql)) {
            int index = 1;
            check.setString(index++, grant.kind() == Kind.SCHEMA ? schema : qualified);
            if (grant.kind() == Kind.COLUMN) {
                check.setString(index++, grant.column());
            }
            check.setString(index, grant.privilege());
            try (ResultSet rs = check.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private static List<Grant> table(String table, String... privileges) {
        return Arrays.stream(privileges)
                .map(privilege -> new Grant(Kind.TABLE, table, null, privilege))
                .toList();
    }
}
