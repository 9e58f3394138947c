package dev.durability.admin.entity;

import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.ConstructorResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;

/**
 * A row of {@code admin_audit}: one admin action, accepted or refused, never updated (a trigger refuses it).
 * Rows are written only by {@link #RECORD}.
 */
@Entity
@Table(name = "admin_audit")
@SqlResultSetMapping(
        name = AdminAuditEntry.ACTION,
        classes =
                @ConstructorResult(
                        targetClass = AdminAction.class,
                        columns = {
                            @ColumnResult(name = "id", type = Long.class),
                            @ColumnResult(name = "at", type = String.class),
                            @ColumnResult(name = "principal", type = String.class),
                            @ColumnResult(name = "channel", type = String.class),
                            @ColumnResult(name = "action", type = String.class),
                            @ColumnResult(name = "outcome", type = String.class),
                            @ColumnResult(name = "details", type = String.class)
                        }))
// ?1 principal, ?2 channel, ?3 action, ?4 outcome, ?5 details (a JSON object's text).
@NamedNativeQuery(name = AdminAuditEntry.RECORD, query = """
        INSERT INTO {schema}.admin_audit (principal, channel, action, outcome, details)
        VALUES (?1, ?2, ?3, ?4, CAST(?5 AS jsonb))
        """)
// The ?1 most recent actions, newest first.
@NamedNativeQuery(name = AdminAuditEntry.RECENT, resultSetMapping = AdminAuditEntry.ACTION, query = """
        SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS"Z"') AS at, principal, channel, action,
               outcome, CAST(details AS text) AS details
          FROM {schema}.admin_audit
         ORDER BY id DESC
         LIMIT ?1
        """)
public class AdminAuditEntry {
    public static final String RECORD = "AdminAuditEntry.record";
    public static final String RECENT = "AdminAuditEntry.recent";
    static final String ACTION = "AdminAuditEntry.action";

    @Id
    @Column(name = "id")
    private Long id;

    protected AdminAuditEntry() {}
}
