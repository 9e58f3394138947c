package dev.durability.deadletter.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durability.config.control.ServiceConfig;
import dev.durability.deadletter.entity.DeadLetter;
import dev.durability.schema.control.MigrationPlan;
import jakarta.persistence.NamedNativeQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The dead-letter queue reads headers anyone who can publish to it may have written: an {@code x-death} header of
 * any shape is read as its latest entry or as nothing, never as an exception, and an occurrence token is either a
 * bounded printable value or no token. Whatever arrives becomes a row PostgreSQL accepts: tried against the real
 * {@code dead_letter_audit} (the shipped migrations in a scratch schema, each try rolled back) with the audit's
 * own insert statement.
 */
class DeadLetterInputPropertyTest {
    private static final String SCHEMA = "durability_dead_letter_properties";
    private static Connection database;
    private static String insert;
    private static List<Integer> insertParameters;

    @BeforeContainer
    static void migrateAScratchSchema() throws SQLException {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL("jdbc:postgresql://" + env("DB_HOST", "localhost") + ":" + env("DB_PORT", "5432") + "/"
                + env("DB_NAME", "postgres"));
        source.setUser(env("DB_USER", "postgres"));
        source.setPassword(env("DB_PASSWORD", ""));
        try (Connection c = source.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
        MigrationPlan.forSchema(source, SCHEMA).migrate();
        database = source.getConnection();
        database.setAutoCommit(false);
        // The audit's own statement, its numbered parameters turned into JDBC's positional ones.
        String record = ServiceConfig.qualify(
                Arrays.stream(DeadLetter.class.getAnnotationsByType(NamedNativeQuery.class))
                        .filter(query -> query.name().equals(DeadLetter.RECORD))
                        .findFirst()
                        .orElseThrow()
                        .query(),
                SCHEMA);
        Matcher numbered = Pattern.compile("\\?(\\d+)").matcher(record);
        insertParameters = new ArrayList<>();
        while (numbered.find()) {
            insertParameters.add(Integer.parseInt(numbered.group(1)));
        }
        insert = numbered.replaceAll("?");
    }

    @AfterContainer
    static void dropTheScratchSchema() throws SQLException {
        database.rollback();
        try (Statement s = database.createStatement()) {
            s.execute("DROP SCHEMA " + SCHEMA + " CASCADE");
        }
        database.commit();
        database.close();
    }

    @Property(tries = 2000)
    void anyXDeathHeaderIsReadAsAnEntryOrAsNothingAndKeptAsJsonPostgresqlTakes(
            @ForAll("headers") Map<String, Object> headers) throws SQLException {
        Optional<XDeath> latest = XDeath.latest(headers);
        latest.ifPresent(entry -> {
            assertThat(entry.queue()).isNotEmpty();
            assertThat(entry.reason()).isNotEmpty();
            assertThat(entry.count()).isPositive();
        });
        String json = XDeath.json(headers).orElseThrow();
        try (PreparedStatement cast = database.prepareStatement("SELECT CAST(? AS jsonb)")) {
            cast.setString(1, json);
            cast.executeQuery().close();
        } finally {
            database.rollback();
        }
    }

    @Property(tries = 2000)
    void aTokenIsBoundedPrintableAndPrefixedOrNoToken(@ForAll("tokens") String token) {
        OccurrenceToken.valid(token).ifPresent(valid -> {
            assertThat(valid).isEqualTo(token).hasSizeLessThanOrEqualTo(OccurrenceToken.MAX_BYTES);
            assertThat(valid.startsWith(OccurrenceToken.APPLICATION)
                            || valid.startsWith(OccurrenceToken.BROKER)
                            || valid.startsWith(OccurrenceToken.MALFORMED))
                    .isTrue();
            assertThat(valid.chars()).allMatch(c -> c >= 0x21 && c <= 0x7e);
        });
    }

    @Property
    void theApplicationsOwnTokensAreValid(
            @ForAll @AlphaChars @StringLength(min = 1, max = 150) String queue, @ForAll long receivedMicros) {
        String token = OccurrenceToken.application(UUID.randomUUID(), queue, receivedMicros);
        assertThat(OccurrenceToken.valid(token)).contains(token);
    }

    /**
     * Any message becomes a row: as read, or, when PostgreSQL refuses its content (a data exception, class 22, or
     * an integrity violation, class 23, which the listener takes as permanent), as the quarantined row of its raw
     * bytes, which it always accepts.
     */
    @Property(tries = 1000)
    void anyMessageOnTheDeadLetterQueueBecomesARowPostgresqlAccepts(
            @ForAll("headers") Map<String, Object> headers,
            @ForAll("bodies") byte[] body,
            @ForAll("wrapped") boolean wrapped,
            @ForAll("text") String text)
            throws SQLException {
        Map<String, Object> all = new HashMap<>(headers);
        if (wrapped) {
            // A wrapper of the application's path, as anyone who can publish to the exchange could also write one.
            all.put(DeadLetterWrapper.HEADER, DeadLetterWrapper.VERSION);
            body = new DeadLetterWrapper(text, text, text, text, Instant.now(), 1, MessageContent.of(body)).toJson();
        }
        var properties = new com.rabbitmq.client.AMQP.BasicProperties.Builder()
                .headers(all)
                .build();
        IncomingDeadLetter letter = IncomingDeadLetter.read("dlq.some.queue", properties, body);
        String outcome = "accepted as read";
        try {
            try {
                record(letter, letter.occurrenceToken(), false);
            } catch (SQLException refused) {
                outcome = "refused, accepted quarantined";
                assertThat(refused.getSQLState()).as(refused.getMessage()).matches("2[23].*");
                database.rollback();
                IncomingDeadLetter quarantined = letter.quarantined("the database refused it as received");
                assertThat(quarantined.content().raw())
                        .isEqualTo(letter.content().bytes());
                record(quarantined, null, true);
            }
        } finally {
            database.rollback();
        }
        // Both ways must have been taken: the generators reach content jsonb refuses.
        Statistics.label("row").collect(outcome);
        Statistics.label("row").coverage(coverage -> {
            coverage.check("accepted as read").count(n -> n > 0);
            coverage.check("refused, accepted quarantined").count(n -> n > 0);
        });
    }

    /** Binds the audit's insert the way DeadLetterAudit does. */
    private static void record(IncomingDeadLetter letter, String token, boolean quarantined) throws SQLException {
        Object[] values = {
            letter.envelopeId() == null ? null : letter.envelopeId().toString(),
            letter.originalQueue(),
            letter.sourceService(),
            letter.eventType(),
            letter.reason(),
            letter.path().column(),
            letter.content().json(),
            letter.content().raw(),
            letter.xDeathJson(),
            token,
            letter.occurredAt() == null ? null : OffsetDateTime.ofInstant(letter.occurredAt(), ZoneOffset.UTC),
            quarantined,
            3600L,
            null,
            letter.evidenceTruncated(),
            // Always 32 hex digits or null: the propagator validated the context it came from.
            quarantined ? null : "4bf92f3577b34da6a3ce929d0e0e4736"
        };
        try (PreparedStatement statement = database.prepareStatement(insert)) {
            for (int i = 0; i < insertParameters.size(); i++) {
                statement.setObject(i + 1, values[insertParameters.get(i) - 1]);
            }
            statement.executeQuery().close();
        }
    }

    @Provide
    Arbitrary<Boolean> wrapped() {
        return Arbitraries.of(false, true);
    }

    /** Any text: NUL, lone surrogates, control characters, long. */
    @Provide
    Arbitrary<String> text() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(40),
                Arbitraries.strings().all().ofMinLength(4_000).ofMaxLength(5_000),
                Arbitraries.strings()
                        .withChars('\u0000', '\ud800', 'a', '\u00e9')
                        .ofMaxLength(20));
    }

    @Example
    void aDeeplyNestedBodyIsKeptAsRawBytes() {
        byte[] nested = ("[".repeat(5_000) + "]".repeat(5_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        IncomingDeadLetter letter = IncomingDeadLetter.read(
                "dlq.some.queue", new com.rabbitmq.client.AMQP.BasicProperties.Builder().build(), nested);
        assertThat(letter.content().raw()).isEqualTo(nested);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
                // JSON that Java reads but jsonb refuses: escaped NUL, a lone surrogate, a number beyond numeric.
                Arbitraries.of(
                                "\"\\u0000\"",
                                "{\"a\":\"\\ud800\"}",
                                "[\"\\udc00x\"]",
                                "1e999999",
                                "{\"id\":\"01a23ac0-abbf-7f1a-ae43-afbdffe6271b\",\"event_type\":\"a.b\",\"x\":\"\\u0000\"}")
                        .map(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                Arbitraries.strings()
                        .withChars("{}[]\":,0123456789abcdefnulltrue ")
                        .ofMaxLength(300)
                        .map(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                Arbitraries.integers()
                        .between(900, 1_200)
                        .map(depth -> ("{\"payload\":" + "[".repeat(depth) + "]".repeat(depth) + "}")
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Provide
    Arbitrary<Map<String, Object>> headers() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(30).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.integers().map(i -> (Object) i),
                Arbitraries.just((Object) null),
                Arbitraries.longs()
                        .between(-10_000_000_000_000L, 10_000_000_000_000L)
                        .map(ms -> (Object) Date.from(Instant.ofEpochMilli(ms))),
                Arbitraries.strings().ofMaxLength(10).map(s -> (Object) s.getBytes()));
        Arbitrary<Object> entry = Arbitraries.maps(
                        Arbitraries.of("queue", "reason", "count", "time", "exchange", "routing-keys", "x"), scalar)
                .ofMaxSize(7)
                .map(m -> (Object) new HashMap<>(m));
        // Well-formed entries with any text in them: what a valid header can carry into the row.
        Arbitrary<Object> wellFormed = Combinators.combine(
                        text(),
                        text(),
                        Arbitraries.longs().between(1, Long.MAX_VALUE),
                        Arbitraries.longs().between(-10_000_000_000_000L, 10_000_000_000_000L))
                .as((queue, reason, count, ms) -> {
                    Map<String, Object> death = new HashMap<>();
                    death.put("queue", queue);
                    death.put("reason", reason);
                    death.put("count", count);
                    death.put("time", Date.from(Instant.ofEpochMilli(ms)));
                    return (Object) new ArrayList<>(List.of(death));
                });
        Arbitrary<Object> deathValue = Arbitraries.oneOf(
                wellFormed,
                entry.list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l)),
                scalar,
                scalar.list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l)),
                entry.list().ofMaxSize(2).map(l -> (Object) List.of(new ArrayList<>(l))));
        return deathValue.map(value -> {
            Map<String, Object> headers = new HashMap<>();
            headers.put(XDeath.HEADER, value);
            return headers;
        });
    }

    @Provide
    Arbitrary<String> tokens() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(300),
                Arbitraries.strings().all().ofMaxLength(300).map(s -> OccurrenceToken.APPLICATION + s),
                Arbitraries.strings().all().ofMaxLength(300).map(s -> OccurrenceToken.MALFORMED + s),
                Arbitraries.strings()
                        .withCharRange('!', '~')
                        .ofMinLength(240)
                        .ofMaxLength(270)
                        .map(s -> OccurrenceToken.BROKER + s));
    }
}
