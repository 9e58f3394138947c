package dev.durability.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Reads the inbox, the dead-letter audit and the demo shipments of one schema, as an operator would with psql. */
final class ConsumerTables {
    private final String schema;

    ConsumerTables(String schema) {
        this.schema = schema;
    }

    record InboxRow(
            int attempts,
            OffsetDateTime receivedAt,
            OffsetDateTime processedAt,
            String lastError,
            OffsetDateTime deadLetteredAt) {}

    record DeadLetterRow(
            long id,
            UUID envelopeId,
            String originalQueue,
            String eventType,
            String reason,
            String path,
            String envelope,
            byte[] rawBytes,
            String xDeath,
            String occurrenceToken,
            OffsetDateTime occurredAt,
            boolean quarantined,
            Long divergentOf,
            boolean evidenceTruncated) {}

    long shipmentsForOrder(UUID orderId) throws SQLException {
        return count("demo_shipments", "order_id = ?", orderId);
    }

    InboxRow inbox(String queue, UUID envelopeId) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT attempts, received_at, processed_at, last_error, " + "dead_lettered_at FROM " + schema
                                + ".event_inbox WHERE consumer_queue = ? AND envelope_id = ?")) {
            s.setString(1, queue);
            s.setObject(2, envelopeId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next()
                        ? new InboxRow(
                                rs.getInt(1),
                                rs.getObject(2, OffsetDateTime.class),
                                rs.getObject(3, OffsetDateTime.class),
                                rs.getString(4),
                                rs.getObject(5, OffsetDateTime.class))
                        : null;
            }
        }
    }

    /** Audit rows matching a condition whose {@code ?} take these parameters, oldest first. */
    List<DeadLetterRow> deadLetters(String where, Object... parameters) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("SELECT id, envelope_id, original_queue, event_type, reason, "
                        + "path, envelope::text, raw_bytes, x_death::text, occurrence_token, occurred_at, quarantined, "
                        + "divergent_of, evidence_truncated FROM " + schema + ".dead_letter_audit WHERE " + where
                        + " ORDER BY id")) {
            bind(s, parameters);
            List<DeadLetterRow> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(new DeadLetterRow(
                            rs.getLong(1),
                            rs.getObject(2, UUID.class),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            rs.getString(6),
                            rs.getString(7),
                            rs.getBytes(8),
                            rs.getString(9),
                            rs.getString(10),
                            rs.getObject(11, OffsetDateTime.class),
                            rs.getBoolean(12),
                            rs.getObject(13, Long.class),
                            rs.getBoolean(14)));
                }
            }
            return rows;
        }
    }

    /** An inbox row of an envelope that first failed this long ago and is still in progress, awaiting its retry. */
    void seedInProgress(String queue, UUID envelopeId, Duration failedAgo) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement("INSERT INTO " + schema + ".event_inbox (consumer_queue, "
                        + "envelope_id, source_service, event_type, received_at, attempts, last_error) "
                        + "VALUES (?, ?, 'orders', 'order.placed', now() - make_interval(secs => ?), 1, 'seeded')")) {
            bind(s, queue, envelopeId, (double) failedAgo.toSeconds());
            s.executeUpdate();
        }
    }

    void deleteInbox(String queue, UUID envelopeId) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "DELETE FROM " + schema + ".event_inbox WHERE consumer_queue = ? AND envelope_id = ?")) {
            bind(s, queue, envelopeId);
            s.executeUpdate();
        }
    }

    long count(String table, String where, Object... parameters) throws SQLException {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT count(*) FROM " + schema + "." + table + " WHERE " + where)) {
            bind(s, parameters);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void bind(PreparedStatement s, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            s.setObject(i + 1, parameters[i]);
        }
    }
}
