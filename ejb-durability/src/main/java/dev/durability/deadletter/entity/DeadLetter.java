package dev.durability.deadletter.entity;

import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.ConstructorResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A row of {@code dead_letter_audit}: one dead-letter occurrence, never updated (a trigger refuses it).
 * Rows are written only by {@link #RECORD}; the other statements read.
 */
@Entity
@Table(name = "dead_letter_audit")
@SqlResultSetMapping(
        name = DeadLetter.RECORDED_ROW,
        classes =
                @ConstructorResult(
                        targetClass = RecordedRow.class,
                        columns = {
                            @ColumnResult(name = "id", type = Long.class),
                            @ColumnResult(name = "in_window", type = Boolean.class)
                        }))
@SqlResultSetMapping(
        name = DeadLetter.STORED_CLAIM,
        classes =
                @ConstructorResult(
                        targetClass = StoredClaim.class,
                        columns = {
                            @ColumnResult(name = "id", type = Long.class),
                            @ColumnResult(name = "identical", type = Boolean.class)
                        }))
@SqlResultSetMapping(
        name = DeadLetter.VIEW,
        classes =
                @ConstructorResult(
                        targetClass = DeadLetterView.class,
                        columns = {
                            @ColumnResult(name = "id", type = Long.class),
                            @ColumnResult(name = "received_at", type = String.class),
                            @ColumnResult(name = "event_type", type = String.class),
                            @ColumnResult(name = "original_queue", type = String.class),
                            @ColumnResult(name = "source_service", type = String.class),
                            @ColumnResult(name = "envelope_id", type = String.class),
                            @ColumnResult(name = "reason", type = String.class),
                            @ColumnResult(name = "path", type = String.class),
                            @ColumnResult(name = "content", type = String.class),
                            @ColumnResult(name = "verdict", type = String.class),
                            @ColumnResult(name = "verdict_note", type = String.class),
                            @ColumnResult(name = "verdict_by", type = String.class),
                            @ColumnResult(name = "verdict_at", type = String.class),
                            @ColumnResult(name = "trace_id", type = String.class)
                        }))
@SqlResultSetMapping(
        name = DeadLetter.STORED_ENVELOPE,
        classes =
                @ConstructorResult(
                        targetClass = DeadLetterEnvelope.class,
                        columns = {@ColumnResult(name = "envelope", type = String.class)}))
@SqlResultSetMapping(
        name = DeadLetter.COUNTS,
        classes =
                @ConstructorResult(
                        targetClass = DeadLetterCounts.class,
                        columns = {
                            @ColumnResult(name = "total", type = Long.class),
                            @ColumnResult(name = "untriaged", type = Long.class),
                            @ColumnResult(name = "last_day", type = Long.class)
                        }))
// Parameters: ?1 envelope id, ?2 original queue, ?3 source service, ?4 event type, ?5 reason, ?6 path,
// ?7 envelope (JSON text), ?8 raw bytes, ?9 x-death (JSON text), ?10 token, ?11 occurred at,
// ?12 quarantined, ?13 the threshold window in seconds, ?14 the row whose token a divergent claim claimed
// (else null), ?15 whether the evidence is truncated, ?16 the trace id the dead letter ends, or null. A token already
// taken inserts nothing and returns no row.
@NamedNativeQuery(name = DeadLetter.RECORD, resultSetMapping = DeadLetter.RECORDED_ROW, query = """
        INSERT INTO {schema}.dead_letter_audit (envelope_id, original_queue, source_service, event_type, reason, path,
                                       envelope, raw_bytes, x_death, occurrence_token, occurred_at, quarantined,
                                       divergent_of, evidence_truncated, trace_id)
        VALUES (CAST(?1 AS uuid), ?2, ?3, ?4, ?5, ?6, CAST(?7 AS jsonb), CAST(?8 AS bytea), CAST(?9 AS jsonb), ?10,
                CAST(?11 AS timestamptz), ?12, CAST(?14 AS bigint), ?15, CAST(?16 AS text))
        ON CONFLICT (occurrence_token) WHERE occurrence_token IS NOT NULL DO NOTHING
        RETURNING id,
                  LEAST(COALESCE(occurred_at, dlq_received_at), dlq_received_at)
                      > now() - make_interval(secs => CAST(?13 AS double precision)) AS in_window
        """)
// Whether the row holding token ?1 states the same immutable facts: ?2 envelope id, ?3 queue,
// ?4 event type, ?5 envelope (JSON text), ?6 raw bytes.
@NamedNativeQuery(name = DeadLetter.CLAIM_OF_TOKEN, resultSetMapping = DeadLetter.STORED_CLAIM, query = """
        SELECT id,
               (envelope_id IS NOT DISTINCT FROM CAST(?2 AS uuid)
                AND original_queue IS NOT DISTINCT FROM CAST(?3 AS text)
                AND event_type IS NOT DISTINCT FROM CAST(?4 AS text)
                AND envelope IS NOT DISTINCT FROM CAST(?5 AS jsonb)
                AND raw_bytes IS NOT DISTINCT FROM CAST(?6 AS bytea)) AS identical
        FROM {schema}.dead_letter_audit
        WHERE occurrence_token = ?1
        """)
// Serializes threshold decisions per event type until the transaction ends: two servers recording the
// 11th and 12th dead letter at once then count one after the other, and exactly one stages the event.
// A recording takes milliseconds: its transaction idle for 30 s belongs to a server lost without closing its
// connection, and the database ends it; nor does a recording wait longer than that for the lock, it is retried
// (docs/decisions/0087-dead-sessions.md). Both set for this transaction only, before the lock is asked for.
@NamedNativeQuery(name = DeadLetter.LOCK_EVENT_TYPE, query = """
        SELECT 1
          FROM (SELECT set_config('lock_timeout', '30s', true) AS lock_timeout,
                       set_config('idle_in_transaction_session_timeout', '30s', true) AS idle) AS bounded,
               LATERAL (SELECT pg_advisory_xact_lock(hashtextextended('durability.dlq-threshold.' || ?1, 0))
                         WHERE bounded.lock_timeout IS NOT NULL AND bounded.idle IS NOT NULL) AS locked
        """)
// Dead letters of event type ?1 inside the window of ?2 seconds, on the database clock; a divergent claim of a
// token is evidence of a divergent copy, not a failure, and does not count.
@NamedNativeQuery(name = DeadLetter.COUNT_IN_WINDOW, query = """
        SELECT count(*) FROM {schema}.dead_letter_audit
        WHERE event_type = ?1
          AND LEAST(COALESCE(occurred_at, dlq_received_at), dlq_received_at)
              > now() - make_interval(secs => CAST(?2 AS double precision))
          AND divergent_of IS NULL
        """)
// The admin pages' list, newest first: ?1 event type or null, ?2 original queue or null, ?3 'all',
// 'untriaged', 'redriven' or 'known-bad' (the latest verdict), ?4 at most this many rows.
@NamedNativeQuery(name = DeadLetter.LIST, resultSetMapping = DeadLetter.VIEW, query = """
        SELECT d.id, to_char(d.dlq_received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS"Z"') AS received_at,
               d.event_type, d.original_queue, d.source_service, CAST(d.envelope_id AS text) AS envelope_id,
               d.reason, d.path,
               COALESCE(left(CAST(d.envelope AS text), 4000), left(encode(d.raw_bytes, 'escape'), 4000)) AS content,
               t.verdict, t.note AS verdict_note, t.principal AS verdict_by,
               to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS"Z"') AS verdict_at, d.trace_id
          FROM {schema}.dead_letter_audit d
          LEFT JOIN LATERAL (SELECT verdict, note, principal, at FROM {schema}.dead_letter_triage
                              WHERE dead_letter_id = d.id ORDER BY at DESC, id DESC LIMIT 1) t ON true
         WHERE (CAST(?1 AS text) IS NULL OR d.event_type = CAST(?1 AS text))
           AND (CAST(?2 AS text) IS NULL OR d.original_queue = CAST(?2 AS text))
           AND (?3 = 'all' OR (?3 = 'untriaged' AND t.verdict IS NULL) OR t.verdict = ?3)
         ORDER BY d.id DESC
         LIMIT ?4
        """)
// The envelope of dead letter ?1 as JSON text (null when it holds raw bytes only; no row when there is no
// such dead letter). Locked against retention until the transaction ends.
@NamedNativeQuery(name = DeadLetter.ENVELOPE_OF, resultSetMapping = DeadLetter.STORED_ENVELOPE, query = """
        SELECT CAST(envelope AS text) AS envelope FROM {schema}.dead_letter_audit WHERE id = ?1 FOR KEY SHARE
        """)
// A triage verdict on dead letter ?1: ?2 'redriven' or 'known-bad', ?3 a note or null, ?4 who.
@NamedNativeQuery(name = DeadLetter.TRIAGE, query = """
        INSERT INTO {schema}.dead_letter_triage (dead_letter_id, verdict, note, principal) VALUES (?1, ?2, CAST(?3 AS text), ?4)
        """)
// The status page's counts, each stopping at ?1 rows, as the outbox's status gauges do.
@NamedNativeQuery(name = DeadLetter.COUNT_ALL, resultSetMapping = DeadLetter.COUNTS, query = """
        SELECT (SELECT count(*) FROM (SELECT 1 FROM {schema}.dead_letter_audit LIMIT ?1) a) AS total,
               (SELECT count(*) FROM (SELECT 1 FROM {schema}.dead_letter_audit d
                 WHERE NOT EXISTS (SELECT 1 FROM {schema}.dead_letter_triage t WHERE t.dead_letter_id = d.id) LIMIT ?1) u)
                   AS untriaged,
               (SELECT count(*) FROM (SELECT 1 FROM {schema}.dead_letter_audit
                 WHERE dlq_received_at > now() - interval '24 hours' LIMIT ?1) r) AS last_day
        """)
public class DeadLetter {
    public static final String RECORDED_ROW = "DeadLetter.recordedRow";
    public static final String STORED_CLAIM = "DeadLetter.storedClaim";
    public static final String RECORD = "DeadLetter.record";
    public static final String CLAIM_OF_TOKEN = "DeadLetter.claimOfToken";
    public static final String LOCK_EVENT_TYPE = "DeadLetter.lockEventType";
    public static final String COUNT_IN_WINDOW = "DeadLetter.countInWindow";
    public static final String LIST = "DeadLetter.list";
    public static final String ENVELOPE_OF = "DeadLetter.envelopeOf";
    public static final String TRIAGE = "DeadLetter.triage";
    public static final String COUNT_ALL = "DeadLetter.countAll";
    static final String VIEW = "DeadLetter.view";
    static final String COUNTS = "DeadLetter.counts";
    static final String STORED_ENVELOPE = "DeadLetter.storedEnvelope";

    @Id
    @Column(name = "id")
    private Long id;

    @Column(name = "envelope_id", insertable = false, updatable = false)
    private UUID envelopeId;

    @Column(name = "event_type", insertable = false, updatable = false)
    private String eventType;

    @Column(name = "reason", insertable = false, updatable = false)
    private String reason;

    @Column(name = "occurrence_token", insertable = false, updatable = false)
    private String occurrenceToken;

    @Column(name = "dlq_received_at", insertable = false, updatable = false)
    private OffsetDateTime dlqReceivedAt;

    protected DeadLetter() {}
}
