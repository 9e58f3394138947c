package dev.durability.it;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.Json;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

/** Direct JDBC access to one schema's {@code event_outbox}, to seed rows and read their state. */
final class OutboxTable {
    private final String schema;

    OutboxTable(String schema) {
        this.schema = schema;
    }

    record Row(
            UUID id,
            UUID aggregateId,
            String eventType,
            OffsetDateTime createdAt,
            OffsetDateTime publishedAt,
            int attempts,
            String lastError,
            OffsetDateTime claimedAt,
            OffsetDateTime nextAttemptAt,
            String claimedBy,
            OffsetDateTime unroutableAt,
            OffsetDateTime lastAttemptAt) {}

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(Coordinates.jdbcUrl(), Coordinates.dbUser(), Coordinates.dbPassword());
    }

    /** The same database as a data source, for the tests' own Flyway runs. */
    static PGSimpleDataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(Coordinates.jdbcUrl());
        dataSource.setUser(Coordinates.dbUser());
        dataSource.setPassword(Coordinates.dbPassword());
        return dataSource;
    }

    static void dropSchema(String schema) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    /** Envelopes of one event type as a producer of this service would stage them. */
    static List<EventEnvelope> envelopes(String eventType, int count) {
        List<EventEnvelope> envelopes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            envelopes.add(EventEnvelope.builder(eventType, "orders")
                    .aggregateId(UUID.randomUUID())
                    .payload(Json.createObjectBuilder().add("n", i).build())
                    .build());
        }
        return envelopes;
    }

    /** Inserts pending rows in one transaction, the way OutboxStager writes them. */
    void seed(List<EventEnvelope> envelopes) throws SQLException {
        seed(envelopes, Map.of());
    }

    /**
     * Inserts pending rows in one transaction; a row whose id is in {@code storedAs} gets that envelope text
     * instead, as only a writer going around OutboxStager could leave.
     */
    void seed(List<EventEnvelope> envelopes, Map<UUID, String> storedAs) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema
                    + ".event_outbox (id, aggregate_id, event_type, envelope) VALUES (?, ?, ?, CAST(? AS jsonb))")) {
                int batched = 0;
                for (EventEnvelope envelope : envelopes) {
                    insert.setObject(1, envelope.id());
                    insert.setObject(2, envelope.aggregateId());
                    insert.setString(3, envelope.eventType());
                    insert.setString(4, storedAs.getOrDefault(envelope.id(), EnvelopeJson.write(envelope)));
                    insert.addBatch();
                    if (++batched % 1000 == 0) {
                        insert.executeBatch();
                    }
                }
                insert.executeBatch();
            }
            c.commit();
        }
    }

    /** A row whose stored envelope is this text, as only a writer going around OutboxStager could leave. */
    void seedRaw(UUID id, String eventType, String envelopeJson) throws SQLException {
        try (Connection c = connect();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema
                        + ".event_outbox (id, event_type, envelope) VALUES (?, ?, CAST(? AS jsonb))")) {
            insert.setObject(1, id);
            insert.setString(2, eventType);
            insert.setString(3, envelopeJson);
            insert.executeUpdate();
        }
    }

    /** Empties the table: for test classes that own their schema and server. */
    void deleteAll() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + schema + ".event_outbox");
        }
    }

    List<Row> rowsOfType(String eventType) throws SQLException {
        return query("event_type = ?", eventType);
    }

    List<Row> rowsOfAggregate(UUID aggregateId) throws SQLException {
        return query("aggregate_id = ?", aggregateId);
    }

    Row row(UUID id) throws SQLException {
        List<Row> rows = query("id = ?", id);
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** Published rows of a type per instance that held their claim. */
    Map<String, Integer> publishedByInstance(String eventType) throws SQLException {
        Map<String, Integer> counts = new HashMap<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT claimed_by, count(*) FROM " + schema
                        + ".event_outbox WHERE event_type = ? AND published_at IS NOT NULL GROUP BY claimed_by")) {
            s.setString(1, eventType);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return counts;
    }

    /** How many distinct claims currently hold unpublished rows of this type. */
    long claimsHeld(String eventType) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT count(DISTINCT claim_token) FROM " + schema
                        + ".event_outbox WHERE event_type = ? AND claimed_at IS NOT NULL AND published_at IS NULL")) {
            s.setString(1, eventType);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    long count(String where, Object... parameters) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT count(*) FROM " + schema + ".event_outbox WHERE " + where)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private List<Row> query(String where, Object parameter) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT id, aggregate_id, event_type, "
                        + "created_at, published_at, attempts, last_error, claimed_at, next_attempt_at, claimed_by, unroutable_at, "
                        + "last_attempt_at FROM "
                        + schema + ".event_outbox WHERE " + where + " ORDER BY created_at, id")) {
            s.setObject(1, parameter);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(
                            rs.getObject(1, UUID.class),
                            rs.getObject(2, UUID.class),
                            rs.getString(3),
                            rs.getObject(4, OffsetDateTime.class),
                            rs.getObject(5, OffsetDateTime.class),
                            rs.getInt(6),
                            rs.getString(7),
                            rs.getObject(8, OffsetDateTime.class),
                            rs.getObject(9, OffsetDateTime.class),
                            rs.getString(10),
                            rs.getObject(11, OffsetDateTime.class),
                            rs.getObject(12, OffsetDateTime.class)));
                }
            }
        }
        return rows;
    }
}
