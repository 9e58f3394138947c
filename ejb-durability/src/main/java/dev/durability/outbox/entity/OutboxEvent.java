package dev.durability.outbox.entity;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.tracing.control.TraceContext;
import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.ConstructorResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;

/**
 * A row of {@code event_outbox}: one staged event, pending until the broker confirmed it. Rows are only
 * ever created here, by staging; the drain moves them through claim, publish and release with the
 * fenced statements below, which run on the database clock.
 */
@Entity
@Table(name = "event_outbox")
@SqlResultSetMapping(
        name = OutboxEvent.CLAIMED_ROW,
        classes =
                @ConstructorResult(
                        targetClass = ClaimedRow.class,
                        columns = {
                            @ColumnResult(name = "id", type = UUID.class),
                            @ColumnResult(name = "event_type", type = String.class),
                            @ColumnResult(name = "envelope", type = String.class),
                            @ColumnResult(name = "publication", type = Integer.class),
                            @ColumnResult(name = "recovered", type = Boolean.class),
                            @ColumnResult(name = "candidates", type = Long.class),
                            @ColumnResult(name = "traceparent", type = String.class),
                            @ColumnResult(name = "tracestate", type = String.class),
                            @ColumnResult(name = "replay_traceparent", type = String.class)
                        }))
@SqlResultSetMapping(
        name = OutboxEvent.PUBLISHED_ROW,
        classes =
                @ConstructorResult(
                        targetClass = PublishedRow.class,
                        columns = {
                            @ColumnResult(name = "id", type = UUID.class),
                            @ColumnResult(name = "lag", type = Double.class)
                        }))
@SqlResultSetMapping(
        name = OutboxEvent.STATUS,
        classes =
                @ConstructorResult(
                        targetClass = OutboxStatus.class,
                        columns = {
                            @ColumnResult(name = "depth", type = Long.class),
                            @ColumnResult(name = "oldest", type = Double.class),
                            @ColumnResult(name = "beyond_grace", type = Long.class),
                            @ColumnResult(name = "with_errors", type = Long.class),
                            @ColumnResult(name = "unroutable", type = Long.class)
                        }))
@SqlResultSetMapping(
        name = OutboxEvent.REPLAY_COUNT,
        classes =
                @ConstructorResult(
                        targetClass = ReplayCount.class,
                        columns = {
                            @ColumnResult(name = "matched", type = Long.class),
                            @ColumnResult(name = "restageable", type = Long.class),
                            @ColumnResult(name = "restaged", type = Long.class),
                            @ColumnResult(name = "beyond_retention", type = Boolean.class),
                            @ColumnResult(name = "retained_since", type = String.class)
                        }))
@SqlResultSetMapping(
        name = OutboxEvent.REPLAY_SLICE_RESULT,
        classes =
                @ConstructorResult(
                        targetClass = ReplaySlice.class,
                        columns = {
                            @ColumnResult(name = "seen", type = Long.class),
                            @ColumnResult(name = "restaged", type = Long.class),
                            @ColumnResult(name = "last_created_at", type = String.class),
                            @ColumnResult(name = "last_id", type = String.class)
                        }))
@SqlResultSetMapping(
        name = OutboxEvent.REDRIVEN_ROW,
        classes =
                @ConstructorResult(
                        targetClass = RedrivenRow.class,
                        columns = {
                            @ColumnResult(name = "pending", type = Boolean.class),
                            @ColumnResult(name = "beyond_retention", type = Boolean.class),
                            @ColumnResult(name = "staged_at", type = String.class),
                            @ColumnResult(name = "publication", type = Integer.class)
                        }))
// Every statement below takes its parameters in one order: the claim token first (?1) where there is
// one, then the row ids (?2), then what the statement alone needs. Parameters are cast in SQL, so the
// statements do not depend on how the driver types them. Every statement runs on the database clock.
//
// Bounds every statement of the drain's short transactions, so a claim or a stamp can never outlive
// the publish round's budget waiting on a lock or a slow plan (docs/decisions/0013-publish-round-budget.md);
// and the transaction's idle time by the same value, so a server that dies without closing its connection
// (host lost, frozen) leaves no rows locked for the operating system's keepalive of hours: the database ends
// the session, and the transaction with it (docs/decisions/0087-dead-sessions.md).
@NamedNativeQuery(name = OutboxEvent.BOUND_STATEMENTS, query = """
        SELECT set_config('statement_timeout', CAST(?1 AS text), true),
               set_config('idle_in_transaction_session_timeout', CAST(?1 AS text), true)
        """)
// The claim transaction's bound, with two planner choices in the same round trip. A queue table's right
// plan is always the ordered scan of the pending index, stopping at the batch size. Right after a burst
// of inserts the statistics still describe a small table and the planner would bitmap-scan and sort
// every pending row instead (measured: 20 ms per claim at 10,000 pending rows, growing with the
// backlog). JIT never pays off for a 100-row claim, and a plan whose cost a planner setting inflated
// would trigger it (measured: 190 ms of compilation per claim). The idle bound as above. Set locally: all
// four end with the claim transaction.
@NamedNativeQuery(name = OutboxEvent.BOUND_CLAIM_STATEMENTS, query = """
        SELECT set_config('statement_timeout', CAST(?1 AS text), true),
               set_config('idle_in_transaction_session_timeout', CAST(?1 AS text), true),
               set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)
        """)
// Due pending rows, free or held by a claim whose lease has ended, in the order they fell due: fresh rows
// (no next attempt) by staging time, retried rows whose backoff ended by their next attempt, each read
// from its own index (event_outbox_fresh_idx, event_outbox_retry_idx), so rows still in backoff are never
// walked. A claim's lease is the one recorded on the row by the server that claimed it, not this server's
// (docs/decisions/0083-lease-on-the-row.md); a row claimed by a server of the release before leases were
// recorded (no lease_until) is held for this server's lease ?3 s from its claim. Rows another worker has
// locked are skipped; up to ?4 rows and ?5 bytes of envelope are taken (the first row always, so an
// envelope larger than the byte bound still drains, alone), each held for ?3 s. Returned in due order, with
// whether an earlier claim had expired and how many due rows were looked at. Candidates beyond the batch or
// the byte bound stay locked only until this short transaction commits.
@NamedNativeQuery(name = OutboxEvent.CLAIM, resultSetMapping = OutboxEvent.CLAIMED_ROW, query = """
        WITH fresh AS (
            SELECT id, created_at AS due_at, claimed_at AS previous_claim, envelope_bytes
              FROM {schema}.event_outbox
             WHERE published_at IS NULL
               AND unroutable_at IS NULL
               AND next_attempt_at IS NULL
               AND (claimed_at IS NULL OR lease_until <= now()
                    OR (lease_until IS NULL AND claimed_at <= now() - make_interval(secs => ?3)))
             ORDER BY created_at, id
             LIMIT ?4
               FOR UPDATE SKIP LOCKED),
        retried AS (
            SELECT id, next_attempt_at AS due_at, claimed_at AS previous_claim, envelope_bytes
              FROM {schema}.event_outbox
             WHERE published_at IS NULL
               AND unroutable_at IS NULL
               AND next_attempt_at <= now()
               AND (claimed_at IS NULL OR lease_until <= now()
                    OR (lease_until IS NULL AND claimed_at <= now() - make_interval(secs => ?3)))
             ORDER BY next_attempt_at, id
             LIMIT ?4
               FOR UPDATE SKIP LOCKED),
        candidates AS (
            SELECT * FROM (SELECT * FROM fresh UNION ALL SELECT * FROM retried) due
             ORDER BY due_at, id
             LIMIT ?4),
        sized AS (
            SELECT id, due_at, previous_claim,
                   sum(envelope_bytes) OVER (ORDER BY due_at, id) - envelope_bytes AS bytes_before,
                   count(*) OVER () AS candidates
              FROM candidates),
        claimed AS (
            UPDATE {schema}.event_outbox o
               SET claimed_at = now(), lease_until = now() + make_interval(secs => ?3),
                   claim_token = CAST(?1 AS uuid), claimed_by = CAST(?2 AS text)
              FROM sized s
             WHERE o.id = s.id
               AND (s.bytes_before = 0 OR s.bytes_before + o.envelope_bytes <= ?5)
            RETURNING o.id, o.event_type, CAST(o.envelope AS text) AS envelope, o.publication, s.due_at,
                      s.previous_claim IS NOT NULL AS recovered, s.candidates, o.traceparent, o.tracestate,
                      o.replay_traceparent)
        SELECT id, event_type, envelope, publication, recovered, candidates, traceparent, tracestate, replay_traceparent
          FROM claimed ORDER BY due_at, id
        """)
// Acked and routed: published, only while this worker's claim still holds the row. A clean publish
// clears the error of an earlier attempt. GREATEST: a database clock stepped back since staging must
// not fail the whole stamp on the published-after-created check.
@NamedNativeQuery(name = OutboxEvent.MARK_PUBLISHED, resultSetMapping = OutboxEvent.PUBLISHED_ROW, query = """
        UPDATE {schema}.event_outbox
           SET published_at = GREATEST(now(), created_at), last_error = NULL, next_attempt_at = NULL
         WHERE claim_token = CAST(?1 AS uuid) AND id = ANY (CAST(?2 AS uuid[])) AND published_at IS NULL
        RETURNING id, EXTRACT(EPOCH FROM now() - created_at) AS lag
        """)
// Acked but returned: routed to no queue. Kept apart from published and pending rows, with the reason ?3.
@NamedNativeQuery(name = OutboxEvent.MARK_UNROUTABLE, query = """
        UPDATE {schema}.event_outbox
           SET unroutable_at = GREATEST(now(), created_at), last_error = CAST(?3 AS text), next_attempt_at = NULL
         WHERE claim_token = CAST(?1 AS uuid) AND id = ANY (CAST(?2 AS uuid[])) AND published_at IS NULL
        """)
// Failed rows: one more attempt, the error ?3, the claim released at once, and the next attempt after an
// exponential backoff (initial ?4 s doubling per attempt, capped at ?5 s, jittered to 50-100 %).
@NamedNativeQuery(name = OutboxEvent.RELEASE_FAILED, query = """
        UPDATE {schema}.event_outbox
           SET attempts = attempts + 1,
               last_error = CAST(?3 AS text),
               last_attempt_at = now(),
               claimed_at = NULL,
               claim_token = NULL,
               lease_until = NULL,
               next_attempt_at = now() + make_interval(
                   secs => LEAST(?5, ?4 * power(2, LEAST(attempts, 30))) * (0.5 + random() * 0.5))
         WHERE claim_token = CAST(?1 AS uuid) AND id = ANY (CAST(?2 AS uuid[])) AND published_at IS NULL
        """)
// Rows handed back unsent (the broker turned out to be blocking publishers): no attempt counted.
@NamedNativeQuery(name = OutboxEvent.RELEASE_UNTRIED, query = """
        UPDATE {schema}.event_outbox
           SET claimed_at = NULL, claim_token = NULL, lease_until = NULL
         WHERE claim_token = CAST(?1 AS uuid) AND id = ANY (CAST(?2 AS uuid[])) AND published_at IS NULL
        """)
// What the status gauges show, each count stopping at ?2 rows: every part is an index range scan of
// the pending, failing or unroutable partial index, never a scan of the whole backlog per scrape.
@NamedNativeQuery(name = OutboxEvent.PENDING_STATUS, resultSetMapping = OutboxEvent.STATUS, query = """
        SELECT (SELECT count(*) FROM (SELECT 1 FROM {schema}.event_outbox
                 WHERE published_at IS NULL AND unroutable_at IS NULL LIMIT ?2) p) AS depth,
               COALESCE((SELECT EXTRACT(EPOCH FROM now() - created_at) FROM {schema}.event_outbox
                 WHERE published_at IS NULL AND unroutable_at IS NULL ORDER BY created_at LIMIT 1), 0) AS oldest,
               (SELECT count(*) FROM (SELECT 1 FROM {schema}.event_outbox
                 WHERE published_at IS NULL AND unroutable_at IS NULL
                   AND created_at < now() - make_interval(secs => ?1) LIMIT ?2) g) AS beyond_grace,
               (SELECT count(*) FROM (SELECT 1 FROM {schema}.event_outbox
                 WHERE published_at IS NULL AND unroutable_at IS NULL AND attempts > 0 LIMIT ?2) f) AS with_errors,
               (SELECT count(*) FROM (SELECT 1 FROM {schema}.event_outbox
                 WHERE unroutable_at IS NOT NULL LIMIT ?2) u) AS unroutable
        """)
// Replay (docs/admin.md). Parameters: ?1 from, ?2 to (the window [from, to) on created_at), ?3 the event type
// or null for all, ?4 true for only the rows that came back unroutable, ?5 the seconds retention keeps the
// scope's rows (0: forever). Counts what the window holds and whether it reaches past retention.
@NamedNativeQuery(name = OutboxEvent.REPLAY_PREVIEW, resultSetMapping = OutboxEvent.REPLAY_COUNT, query = """
        SELECT count(*) AS matched,
               count(*) FILTER (WHERE published_at IS NOT NULL OR unroutable_at IS NOT NULL) AS restageable,
               CAST(0 AS bigint) AS restaged,
               (CAST(?5 AS bigint) > 0
                AND CAST(?1 AS timestamptz) < now() - CAST(?5 AS bigint) * interval '1 second') AS beyond_retention,
               CASE WHEN CAST(?5 AS bigint) > 0
                    THEN to_char((now() - CAST(?5 AS bigint) * interval '1 second') AT TIME ZONE 'UTC',
                                 'YYYY-MM-DD"T"HH24:MI:SS"Z"') END AS retained_since
          FROM {schema}.event_outbox
         WHERE created_at >= CAST(?1 AS timestamptz) AND created_at < CAST(?2 AS timestamptz)
           AND (CAST(?3 AS text) IS NULL OR event_type = CAST(?3 AS text))
           AND (NOT CAST(?4 AS boolean) OR unroutable_at IS NOT NULL)
        """)
// One slice of a replay job (docs/decisions/0084-replay-as-a-job.md): the next ?8 rows of the window in
// (created_at, id) order after the job's position (?6, ?7: the last row an earlier slice looked at; '-infinity'
// and the nil UUID for the first slice), re-staged when they are published or unroutable: pending again with a
// fresh start (no attempts, error, claim or backoff) and the next publication generation, which consumers that
// gave up on an envelope take as a new occurrence. Pending rows are counted and left alone: re-staging one would
// clear the claim a drain is publishing it under. ?1 is the slice's lower bound on created_at (the window's start,
// or the position's created_at, so each slice starts its index range where the last one stopped), ?2 the window's
// end, ?3 the event type or null for all, ?4 true for only the rows that came back unroutable, ?5 the replay
// span's traceparent (null when nothing traces), which the rows' next publish spans link to. Answers how many
// rows the slice looked at and restaged and the position after it (null when it looked at none).
@NamedNativeQuery(name = OutboxEvent.REPLAY_SLICE, resultSetMapping = OutboxEvent.REPLAY_SLICE_RESULT, query = """
        WITH slice AS (
            SELECT id, created_at, (published_at IS NOT NULL OR unroutable_at IS NOT NULL) AS restageable
              FROM {schema}.event_outbox
             WHERE created_at >= CAST(?1 AS timestamptz) AND created_at < CAST(?2 AS timestamptz)
               AND (created_at, id) > (CAST(?6 AS timestamptz), CAST(?7 AS uuid))
               AND (CAST(?3 AS text) IS NULL OR event_type = CAST(?3 AS text))
               AND (NOT CAST(?4 AS boolean) OR unroutable_at IS NOT NULL)
             ORDER BY created_at, id
             LIMIT ?8),
        restaged AS (
            UPDATE {schema}.event_outbox o
               SET published_at = NULL, unroutable_at = NULL, attempts = 0, last_error = NULL,
                   last_attempt_at = NULL, next_attempt_at = NULL, claimed_at = NULL, claim_token = NULL,
                   lease_until = NULL, claimed_by = NULL, publication = o.publication + 1,
                   replay_traceparent = CAST(?5 AS text)
              FROM slice s
             WHERE o.id = s.id AND s.restageable
               AND (o.published_at IS NOT NULL OR o.unroutable_at IS NOT NULL)
            RETURNING 1),
        last AS (
            SELECT created_at, id FROM slice ORDER BY created_at DESC, id DESC LIMIT 1)
        SELECT (SELECT count(*) FROM slice) AS seen, (SELECT count(*) FROM restaged) AS restaged,
               (SELECT CAST(created_at AS text) FROM last) AS last_created_at,
               (SELECT CAST(id AS text) FROM last) AS last_id
        """)
// Redrive: resets the outbox row of envelope ?1 as a replay resets it (publication + 1), when this outbox staged
// it no more than ?2 seconds ago (0: retention keeps rows forever). The staging time bounds it, not the dead
// letter's: consumers' dedup records date from the event's first delivery, and the inbox keeps them longer than
// the outbox keeps rows (docs/decisions/0063-redrive-resets-own-rows-only.md, 0092). No row comes back when this
// outbox holds no such event; a pending row or one beyond the window is reported and left as it is.
// ?3 is the redrive span's traceparent (null when nothing traces), kept as a replay's is.
@NamedNativeQuery(name = OutboxEvent.REDRIVE, resultSetMapping = OutboxEvent.REDRIVEN_ROW, query = """
        WITH staged AS (
            SELECT id, published_at IS NULL AND unroutable_at IS NULL AS pending,
                   (CAST(?2 AS bigint) > 0 AND created_at < now() - CAST(?2 AS bigint) * interval '1 second')
                       AS beyond_retention,
                   CAST(created_at AS text) AS staged_at
              FROM {schema}.event_outbox WHERE id = CAST(?1 AS uuid) FOR UPDATE),
        restaged AS (
            UPDATE {schema}.event_outbox o
               SET published_at = NULL, unroutable_at = NULL, attempts = 0, last_error = NULL, last_attempt_at = NULL,
                   next_attempt_at = NULL, claimed_at = NULL, claim_token = NULL, lease_until = NULL, claimed_by = NULL,
                   publication = o.publication + 1, replay_traceparent = CAST(?3 AS text)
              FROM staged s
             WHERE o.id = s.id AND NOT s.pending AND NOT s.beyond_retention
            RETURNING o.publication)
        SELECT s.pending, s.beyond_retention, s.staged_at, (SELECT publication FROM restaged) AS publication
          FROM staged s
        """)
// The event types among the ?1 most recently staged rows, for the replay page's suggestions: bounded, so the
// page never scans a month of events to draw a list.
@NamedNativeQuery(name = OutboxEvent.RECENT_EVENT_TYPES, query = """
        SELECT event_type FROM (SELECT event_type FROM {schema}.event_outbox ORDER BY created_at DESC LIMIT ?1) recent
         GROUP BY event_type ORDER BY event_type
        """)
public class OutboxEvent {
    public static final String BOUND_STATEMENTS = "OutboxEvent.boundStatements";
    public static final String BOUND_CLAIM_STATEMENTS = "OutboxEvent.boundClaimStatements";
    public static final String CLAIM = "OutboxEvent.claim";
    public static final String MARK_PUBLISHED = "OutboxEvent.markPublished";
    public static final String MARK_UNROUTABLE = "OutboxEvent.markUnroutable";
    public static final String RELEASE_FAILED = "OutboxEvent.releaseFailed";
    public static final String RELEASE_UNTRIED = "OutboxEvent.releaseUntried";
    public static final String PENDING_STATUS = "OutboxEvent.pendingStatus";
    public static final String REPLAY_PREVIEW = "OutboxEvent.replayPreview";
    public static final String REPLAY_SLICE = "OutboxEvent.replaySlice";
    public static final String REDRIVE = "OutboxEvent.redrive";
    public static final String RECENT_EVENT_TYPES = "OutboxEvent.recentEventTypes";
    static final String CLAIMED_ROW = "OutboxEvent.claimedRow";
    static final String PUBLISHED_ROW = "OutboxEvent.publishedRow";
    static final String STATUS = "OutboxEvent.status";
    static final String REPLAY_COUNT = "OutboxEvent.replayCount";
    static final String REPLAY_SLICE_RESULT = "OutboxEvent.replaySliceResult";
    static final String REDRIVEN_ROW = "OutboxEvent.redrivenRow";

    /** The longest {@code last_error} kept: enough for a broker's reply text, bounded against runaway messages. */
    public static final int MAX_ERROR_LENGTH = 2000;

    @Id
    private UUID id;

    @Column(name = "aggregate_id")
    private UUID aggregateId;

    @Column(name = "event_type", nullable = false, updatable = false)
    private String eventType;

    @Column(name = "envelope", nullable = false, updatable = false, columnDefinition = "jsonb")
    private String envelope;

    /**
     * False for every row staged through OutboxStager, which wakes its server's drain itself after the commit;
     * rows inserted by SQL keep the column's default (true) and notify the drains' LISTEN connections.
     */
    @Column(name = "notify_drains", nullable = false, updatable = false)
    private boolean notifyDrains;

    /** The W3C context of the staging's create span; null when nothing traced the staging. */
    @Column(name = "traceparent", updatable = false)
    private String traceparent;

    @Column(name = "tracestate", updatable = false)
    private String tracestate;

    @Column(name = "created_at", insertable = false, updatable = false)
    private OffsetDateTime createdAt;

    @Column(name = "published_at", insertable = false, updatable = false)
    private OffsetDateTime publishedAt;

    @Column(name = "attempts", insertable = false, updatable = false)
    private int attempts;

    @Column(name = "last_error", insertable = false, updatable = false)
    private String lastError;

    @Column(name = "unroutable_at", insertable = false, updatable = false)
    private OffsetDateTime unroutableAt;

    @Column(name = "claimed_at", insertable = false, updatable = false)
    private OffsetDateTime claimedAt;

    @Column(name = "next_attempt_at", insertable = false, updatable = false)
    private OffsetDateTime nextAttemptAt;

    protected OutboxEvent() {
        // for JPA
    }

    private OutboxEvent(EventEnvelope envelope) {
        this.id = envelope.id();
        this.aggregateId = envelope.aggregateId();
        this.eventType = envelope.eventType();
        // Written from the envelope itself, so the row's columns and its JSON can never disagree.
        this.envelope = EnvelopeJson.write(envelope);
        this.notifyDrains = false;
    }

    /** A new pending row for this envelope. */
    public static OutboxEvent staged(EventEnvelope envelope) {
        return new OutboxEvent(Objects.requireNonNull(envelope, "envelope"));
    }

    /**
     * Records the context of the span that staged this new row (docs/operations.md, "Tracing"); the drain's publish
     * span continues it. Set before the row is persisted: the columns are written with the row and never updated.
     */
    public void tracedBy(TraceContext context) {
        this.traceparent = context.traceparent();
        this.tracestate = context.tracestate();
    }

    public String traceparent() {
        return traceparent;
    }

    public String tracestate() {
        return tracestate;
    }

    /** The size of the envelope as it will be published. */
    public int envelopeBytes() {
        return envelope.getBytes(StandardCharsets.UTF_8).length;
    }

    public UUID id() {
        return id;
    }

    public UUID aggregateId() {
        return aggregateId;
    }

    public String eventType() {
        return eventType;
    }

    public String envelope() {
        return envelope;
    }

    public OffsetDateTime createdAt() {
        return createdAt;
    }

    public OffsetDateTime publishedAt() {
        return publishedAt;
    }

    /** Neither published nor returned unroutable: the drain will claim it once its backoff elapsed. */
    public boolean pending() {
        return publishedAt == null && unroutableAt == null;
    }

    public OffsetDateTime unroutableAt() {
        return unroutableAt;
    }

    public int attempts() {
        return attempts;
    }

    public String lastError() {
        return lastError;
    }

    public OffsetDateTime claimedAt() {
        return claimedAt;
    }

    public OffsetDateTime nextAttemptAt() {
        return nextAttemptAt;
    }
}
