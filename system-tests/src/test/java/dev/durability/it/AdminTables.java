package dev.durability.it;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Seeds and reads what the admin actions work on, in one schema: outbox rows created at a chosen instant, dead
 * letters, their triage and the admin audit.
 */
final class AdminTables {
    private final String schema;
    private final List<UUID> backedOff = new ArrayList<>();

    AdminTables(String schema) {
        this.schema = schema;
    }

    enum State {
        /** Pending, failed once and backed off for a day: the drain leaves it alone during a test. */
        BACKED_OFF,
        PUBLISHED,
        UNROUTABLE
    }

    record OutboxState(int publication, OffsetDateTime publishedAt, OffsetDateTime unroutableAt, int attempts) {}

    record AuditRow(String principal, String channel, String action, String outcome, String details) {}

    /** An outbox row created at {@code createdAt}: published or returned unroutable a second later, or backed off. */
    void seedOutbox(EventEnvelope envelope, OffsetDateTime createdAt, State state) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema
                        + ".event_outbox (id, aggregate_id, event_type, envelope, created_at, published_at, unroutable_at,"
                        + " attempts, last_error, next_attempt_at) VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?,"
                        + " CASE WHEN ? THEN now() + interval '1 day' END)")) {
            insert.setObject(1, envelope.id());
            insert.setObject(2, envelope.aggregateId());
            insert.setString(3, envelope.eventType());
            insert.setString(4, EnvelopeJson.write(envelope));
            insert.setObject(5, createdAt);
            insert.setObject(6, state == State.PUBLISHED ? createdAt.plusSeconds(1) : null);
            insert.setObject(7, state == State.UNROUTABLE ? createdAt.plusSeconds(1) : null);
            insert.setInt(8, state == State.BACKED_OFF ? 1 : 0);
            insert.setString(9, state == State.BACKED_OFF ? "seeded: broker nacked" : null);
            insert.setBoolean(10, state == State.BACKED_OFF);
            insert.executeUpdate();
        }
        if (state == State.BACKED_OFF) {
            backedOff.add(envelope.id());
        }
    }

    /**
     * Deletes the backed-off rows this instance seeded: left pending, they would stay in the shared server's
     * outbox gauges (depth, beyond grace) for every later test.
     */
    void removeBackedOffRows() throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement delete =
                        c.prepareStatement("DELETE FROM " + schema + ".event_outbox WHERE id = ANY (?)")) {
            delete.setArray(1, c.createArrayOf("uuid", backedOff.toArray()));
            delete.executeUpdate();
        }
        backedOff.clear();
    }

    OutboxState outbox(UUID id) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT publication, published_at, unroutable_at, attempts FROM " + schema
                                + ".event_outbox WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next()
                        ? new OutboxState(
                                rs.getInt(1),
                                rs.getObject(2, OffsetDateTime.class),
                                rs.getObject(3, OffsetDateTime.class),
                                rs.getInt(4))
                        : null;
            }
        }
    }

    OffsetDateTime createdAt(UUID id) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT created_at FROM " + schema + ".event_outbox WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class);
            }
        }
    }

    /** A dead letter recorded by the application path, holding this JSON text as its envelope; returns its id. */
    long seedDeadLetter(UUID envelopeId, String eventType, String queue, String envelopeJson) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema
                        + ".dead_letter_audit (envelope_id, original_queue, source_service, event_type, reason, path,"
                        + " envelope) VALUES (?, ?, 'orders', ?, 'handler failed 5 times', 'application',"
                        + " CAST(? AS jsonb)) RETURNING id")) {
            insert.setObject(1, envelopeId);
            insert.setString(2, queue);
            insert.setString(3, eventType);
            insert.setString(4, envelopeJson);
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The dead letter's row as stored, to show it never changes. */
    String deadLetterRow(long id) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT CAST(row_to_json(d) AS text) FROM " + schema + ".dead_letter_audit d WHERE id = ?")) {
            s.setLong(1, id);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** Verdicts on a dead letter, oldest first, as "verdict by principal: note". */
    List<String> triage(long deadLetterId) throws SQLException {
        List<String> verdicts = new ArrayList<>();
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT verdict, principal, note FROM " + schema
                        + ".dead_letter_triage WHERE dead_letter_id = ? ORDER BY id")) {
            s.setLong(1, deadLetterId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    verdicts.add(rs.getString(1) + " by " + rs.getString(2) + ": " + rs.getString(3));
                }
            }
        }
        return verdicts;
    }

    /** The audit rows of one principal, oldest first. */
    List<AuditRow> auditOf(String principal) throws SQLException {
        List<AuditRow> rows = new ArrayList<>();
        try (Connection c = OutboxTable.connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT principal, channel, action, outcome, CAST(details AS text)"
                                + " FROM " + schema + ".admin_audit WHERE principal = ? ORDER BY id")) {
            s.setString(1, principal);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(new AuditRow(
                            rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)));
                }
            }
        }
        return rows;
    }

    long auditCount() throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + schema + ".admin_audit");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
