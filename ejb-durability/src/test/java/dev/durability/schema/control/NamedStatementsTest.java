package dev.durability.schema.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.admin.entity.AdminAuditEntry;
import dev.durability.admin.entity.ReplayJob;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.inbox.entity.InboxEntry;
import dev.durability.outbox.entity.OutboxEvent;
import jakarta.persistence.NamedNativeQuery;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every statement of the library names the tables and sequences its migrations create through the schema token,
 * never bare: a bare name would reach whatever the application's search_path finds first
 * (docs/decisions/0091-resources-by-reference.md).
 */
class NamedStatementsTest {
    private static final List<Class<?>> ENTITIES =
            List.of(OutboxEvent.class, InboxEntry.class, DeadLetter.class, AdminAuditEntry.class, ReplayJob.class);
    private static final Pattern CREATED =
            Pattern.compile("CREATE (?:TABLE|SEQUENCE) (?:IF NOT EXISTS )?([a-z_]+)", Pattern.CASE_INSENSITIVE);

    @Test
    void theMigrationsCreateTheTablesTheStatementsAreCheckedFor() throws Exception {
        assertThat(librarysRelations()).contains("event_outbox", "event_inbox", "idempotency_claim_generation");
    }

    @Test
    void everyNamedStatementNamesTheLibrarysRelationsThroughTheSchemaToken() throws Exception {
        Set<String> relations = librarysRelations();
        List<String> bare = new ArrayList<>();
        int statements = 0;
        for (Class<?> entity : ENTITIES) {
            for (NamedNativeQuery statement : entity.getAnnotationsByType(NamedNativeQuery.class)) {
                statements++;
                bare.addAll(bareNames(statement.name(), statement.query(), relations));
            }
        }
        assertThat(statements).as("named statements found").isGreaterThan(30);
        assertThat(bare).isEmpty();
    }

    @Test
    void everyJdbcStatementOfTheLibraryNamesItsRelationsThroughTheSchemaToken() throws Exception {
        Set<String> relations = librarysRelations();
        List<String> bare = new ArrayList<>();
        for (Path source : List.of(
                source("retention/control/RetentionPruner.java"),
                Path.of(
                        "../idempotency-filter/src/main/java/dev/durability/idempotency/boundary/IdempotencyRecords.java"))) {
            String java = Files.readString(source);
            Matcher block = Pattern.compile("\"\"\"(.*?)\"\"\"", Pattern.DOTALL).matcher(java);
            while (block.find()) {
                bare.addAll(bareNames(source.getFileName().toString(), block.group(1), relations));
            }
        }
        assertThat(bare).isEmpty();
    }

    /** Each relation named in the statement without the schema token before it. */
    private static List<String> bareNames(String statement, String sql, Set<String> relations) {
        List<String> bare = new ArrayList<>();
        for (String relation : relations) {
            Matcher use = Pattern.compile("(?<![a-z_])" + relation + "\\b").matcher(sql);
            while (use.find()) {
                if (use.start() == 0 || sql.charAt(use.start() - 1) != '.') {
                    bare.add(statement + ": " + relation);
                }
            }
        }
        return bare;
    }

    private static Set<String> librarysRelations() throws IOException, URISyntaxException {
        URL marker = Objects.requireNonNull(
                NamedStatementsTest.class.getClassLoader().getResource("db/migration/flyway.location"));
        Set<String> relations = new TreeSet<>();
        for (String migration : migrations(marker)) {
            Matcher created = CREATED.matcher(migration);
            while (created.find()) {
                relations.add(created.group(1).toLowerCase());
            }
        }
        return relations;
    }

    /** The migration scripts, from durability-resources' classes folder or its jar, as the build resolved it. */
    private static List<String> migrations(URL marker) throws IOException, URISyntaxException {
        URI uri = marker.toURI();
        if (uri.getScheme().equals("jar")) {
            try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                return read(jar.getPath("db/migration"));
            }
        }
        return read(Path.of(uri).getParent());
    }

    private static List<String> read(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            List<String> texts = new ArrayList<>();
            for (Path file : files.filter(p -> p.getFileName().toString().endsWith(".sql"))
                    .toList()) {
                texts.add(Files.readString(file, StandardCharsets.UTF_8));
            }
            return texts;
        }
    }

    private static Path source(String relative) {
        return Path.of("src/main/java/dev/durability/" + relative);
    }
}
