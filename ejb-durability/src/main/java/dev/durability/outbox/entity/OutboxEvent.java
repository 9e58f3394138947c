package dev.durability.outbox.entity;

import dev.durability.envelope.EnvelopeJson;
import dev.durability.envelope.EventEnvelope;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
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
// A queue table's right plan is always the ordered scan of the pending index, stopping at the batch
// size. Right after a burst of inserts the statistics still describe a small table and the planner
// would bitmap-scan and sort every pending row instead (measured: 20 ms per claim at 10,000 pending
// rows, growing with the backlog). JIT never pays off for a 100-row claim, and a plan whose cost a
// planner setting inflated would trigger it (measured: 190 ms of compilation per claim). SET LOCAL
// keeps both choices to this claim transaction.
@NamedNativeQuery(name = OutboxEvent.PREFER_ORDERED_PENDING_SCAN, query = """
        SELECT set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)
        """)
// Pending rows whose backoff elapsed and whose claim is absent or older than the lease, oldest first,
// skipping rows another worker has locked; returned oldest first, with whether an earlier claim had
// expired. Parameters are cast in SQL, so the statements do not depend on how the driver types them.
@NamedNativeQuery(name = OutboxEvent.CLAIM, query = """
        WITH candidates AS (
            SELECT id, claimed_at AS previous_claim
              FROM event_outbox
             WHERE published_at IS NULL
               AND (next_attempt_at IS NULL OR next_attempt_at <= now())
               AND (claimed_at IS NULL OR claimed_at <= now() - make_interval(secs => ?1))
             ORDER BY created_at, id
             LIMIT ?2
               FOR UPDATE SKIP LOCKED),
        claimed AS (
            UPDATE event_outbox o
               SET claimed_at = now(), claim_token = CAST(?3 AS uuid), claimed_by = CAST(?4 AS text)
              FROM candidates c
             WHERE o.id = c.id
            RETURNING o.id, o.event_type, CAST(o.envelope AS text) AS envelope, o.created_at,
                      c.previous_claim IS NOT NULL AS recovered)
        SELECT id, event_type, envelope, recovered FROM claimed ORDER BY created_at, id
        """)
// Acked rows become published, only while this worker's claim still holds them; returns each row's lag.
// last_error keeps the reason of an earlier failed attempt unless a note (unroutable) replaces it.
@NamedNativeQuery(name = OutboxEvent.MARK_PUBLISHED, query = """
        UPDATE event_outbox
           SET published_at = now(), last_error = COALESCE(CAST(?3 AS text), last_error), next_attempt_at = NULL
         WHERE id = ANY (CAST(?1 AS uuid[])) AND claim_token = CAST(?2 AS uuid) AND published_at IS NULL
        RETURNING EXTRACT(EPOCH FROM now() - created_at)
        """)
// Failed rows: one more attempt, the error, the claim released at once, and the next attempt after an
// exponential backoff (initial ?3 s doubling per attempt, capped at ?4 s, jittered to 50-100 %).
@NamedNativeQuery(name = OutboxEvent.RELEASE_FAILED, query = """
        UPDATE event_outbox
           SET attempts = attempts + 1,
               last_error = CAST(?2 AS text),
               claimed_at = NULL,
               claim_token = NULL,
               next_attempt_at = now() + make_interval(
                   secs => LEAST(?4, ?3 * power(2, LEAST(attempts, 30))) * (0.5 + random() * 0.5))
         WHERE id = ANY (CAST(?1 AS uuid[])) AND claim_token = CAST(?5 AS uuid) AND published_at IS NULL
        """)
@NamedNativeQuery(name = OutboxEvent.PENDING_STATUS, query = """
        SELECT count(*),
               COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0),
               count(*) FILTER (WHERE created_at < now() - make_interval(secs => ?1)),
               count(*) FILTER (WHERE attempts > 0)
          FROM event_outbox
         WHERE published_at IS NULL
        """)
public class OutboxEvent {
    public static final String PREFER_ORDERED_PENDING_SCAN = "OutboxEvent.preferOrderedPendingScan";
    public static final String CLAIM = "OutboxEvent.claim";
    public static final String MARK_PUBLISHED = "OutboxEvent.markPublished";
    public static final String RELEASE_FAILED = "OutboxEvent.releaseFailed";
    public static final String PENDING_STATUS = "OutboxEvent.pendingStatus";

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

    @Column(name = "created_at", insertable = false, updatable = false)
    private OffsetDateTime createdAt;

    @Column(name = "published_at", insertable = false, updatable = false)
    private OffsetDateTime publishedAt;

    @Column(name = "attempts", insertable = false, updatable = false)
    private int attempts;

    @Column(name = "last_error", insertable = false, updatable = false)
    private String lastError;

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
    }

    /** A new pending row for this envelope. */
    public static OutboxEvent staged(EventEnvelope envelope) {
        return new OutboxEvent(Objects.requireNonNull(envelope, "envelope"));
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

    public boolean pending() {
        return publishedAt == null;
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
