package dev.durability.schema.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.schema.control.RuntimeGrants.Grant;
import dev.durability.schema.control.RuntimeGrants.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The privileges a server checks at start are exactly those the documented grant script gives: a grant the
 * library starts using without documenting it, or a documented one it no longer checks, fails here.
 */
class RuntimeGrantsTest {
    private static final Path SCRIPT = Path.of("..", "docs", "grants", "postgresql.sql");

    private static final Pattern GRANT = Pattern.compile(
            "GRANT\\s+(?<privileges>.+?)\\s+ON\\s+(?:(?<kind>SCHEMA|SEQUENCE)\\s+)?:\"schema\"(?:\\.(?<object>\\w+))?"
                    + "\\s+TO\\s+:\"runtime\"",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern COLUMN_PRIVILEGE = Pattern.compile("(\\w+)\\s*\\(\\s*(\\w+)\\s*\\)");

    @Test
    void checksExactlyWhatTheGrantScriptGrants() throws IOException {
        assertThat(documented()).containsExactlyInAnyOrderElementsOf(RuntimeGrants.REQUIRED);
    }

    @Test
    void everyStatementOfTheScriptIsAGrantToTheRuntimeRole() throws IOException {
        for (String statement : statements()) {
            assertThat(GRANT.matcher(statement).matches())
                    .as("statement %s", statement)
                    .isTrue();
        }
    }

    @Test
    void namesAMissingPrivilegeAsTheGrantThatGivesIt() {
        assertThat(new Grant(Kind.COLUMN, "dead_letter_audit", "id", "UPDATE").statement("billing"))
                .isEqualTo("GRANT UPDATE (id) ON billing.dead_letter_audit");
        assertThat(new Grant(Kind.SCHEMA, "", null, "USAGE").statement("billing"))
                .isEqualTo("GRANT USAGE ON SCHEMA billing");
        assertThat(new Grant(Kind.SEQUENCE, "idempotency_claim_generation", null, "USAGE").statement("billing"))
                .isEqualTo("GRANT USAGE ON SEQUENCE billing.idempotency_claim_generation");
        assertThat(new Grant(Kind.TABLE, "event_outbox", null, "DELETE").statement("billing"))
                .isEqualTo("GRANT DELETE ON billing.event_outbox");
    }

    private static List<Grant> documented() throws IOException {
        List<Grant> grants = new ArrayList<>();
        for (String statement : statements()) {
            Matcher grant = GRANT.matcher(statement);
            if (!grant.matches()) {
                continue; // reported by everyStatementOfTheScriptIsAGrantToTheRuntimeRole
            }
            String kind = grant.group("kind");
            String object = grant.group("object") == null ? "" : grant.group("object");
            for (String privilege : grant.group("privileges").split(",")) {
                Matcher column = COLUMN_PRIVILEGE.matcher(privilege.trim());
                if (column.matches()) {
                    grants.add(new Grant(
                            Kind.COLUMN,
                            object,
                            column.group(2),
                            column.group(1).toUpperCase()));
                } else {
                    Kind onWhat = kind == null ? Kind.TABLE : Kind.valueOf(kind.toUpperCase());
                    grants.add(new Grant(onWhat, object, null, privilege.trim().toUpperCase()));
                }
            }
        }
        return grants;
    }

    private static List<String> statements() throws IOException {
        StringBuilder sql = new StringBuilder();
        for (String line : Files.readAllLines(SCRIPT)) {
            int comment = line.indexOf("--");
            sql.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : sql.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        assertThat(statements).as("statements of %s", SCRIPT).isNotEmpty();
        return statements;
    }
}
