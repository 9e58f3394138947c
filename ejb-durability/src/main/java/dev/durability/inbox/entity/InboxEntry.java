package dev.durability.inbox.entity;

import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.ConstructorResult;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;

/**
 * A row of {@code event_inbox}: what one consumer queue did with one envelope. Rows are written only by
 * the statements below, inside a delivery's transaction (begin) or in a transaction of their own (a
 * failed attempt, a replay's restart), all on the database clock.
 */
@Entity
@Table(name = "event_inbox")
@SqlResultSetMapping(
        name = InboxEntry.STATE,
        classes =
                @ConstructorResult(
                        targetClass = InboxState.class,
                        columns = {
                            @ColumnResult(name = "processed", type = Boolean.class),
                            @ColumnResult(name = "dead_lettered", type = Boolean.class),
                            @ColumnResult(name = "attempts", type = Integer.class),
                            @ColumnResult(name = "received_micros", type = Long.class),
                            @ColumnResult(name = "last_error", type = String.class),
                            @ColumnResult(name = "dead_lettered_publication", type = Integer.class)
                        }))
@SqlResultSetMapping(
        name = InboxEntry.QUEUE_STATS,
        classes =
                @ConstructorResult(
                        targetClass = InboxQueueStats.class,
                        columns = {
                            @ColumnResult(name = "consumer_queue", type = String.class),
                            @ColumnResult(name = "processed", type = Long.class),
                            @ColumnResult(name = "in_progress", type = Long.class),
                            @ColumnResult(name = "dead_lettered", type = Long.class)
                        }))
// Per consumer queue, the envelopes received in the last 24 hours (a range of the received_at index; a replay of an
// envelope a consumer gave up on receives it anew).
@NamedNativeQuery(name = InboxEntry.LAST_DAY, resultSetMapping = InboxEntry.QUEUE_STATS, query = """
        SELECT consumer_queue,
               count(*) FILTER (WHERE processed_at IS NOT NULL) AS processed,
               count(*) FILTER (WHERE processed_at IS NULL AND dead_lettered_at IS NULL) AS in_progress,
               count(*) FILTER (WHERE dead_lettered_at IS NOT NULL) AS dead_lettered
          FROM {schema}.event_inbox
         WHERE received_at > now() - interval '24 hours'
         GROUP BY consumer_queue
         ORDER BY consumer_queue
        """)
// Parameters: ?1 consumer queue, ?2 envelope id, then what the statement alone needs.
//
// The delivery's first statement, and its only one of the inbox's own: the row, inserted or taken
// over, stamped processed and locked until the delivery's transaction ends. When the handler then
// fails, the transaction rolls back and none of it happened. A row already processed or dead-lettered
// is left alone and nothing is returned; a concurrent delivery of the same envelope to the same queue
// waits here until the first one committed or rolled back, but no longer than ?5 milliseconds: the same bound
// ends this transaction's session when it sits idle that long, so a server lost without closing its connection
// (host gone, frozen) holds the row for no longer (docs/decisions/0087-dead-sessions.md). Both are set for this
// transaction only, in this statement, before its insert can wait: no extra round trip.
@NamedNativeQuery(name = InboxEntry.BEGIN, query = """
        INSERT INTO {schema}.event_inbox AS i (consumer_queue, envelope_id, source_service, event_type, processed_at, attempts)
        SELECT ?1, CAST(?2 AS uuid), ?3, ?4, now(), 1
          FROM (SELECT set_config('lock_timeout', CAST(?5 AS text), true) AS lock_timeout,
                       set_config('idle_in_transaction_session_timeout', CAST(?5 AS text), true) AS idle) AS bounded
         WHERE bounded.lock_timeout IS NOT NULL AND bounded.idle IS NOT NULL
        ON CONFLICT (consumer_queue, envelope_id) DO UPDATE
            SET processed_at = now(), attempts = i.attempts + 1, last_error = NULL
            WHERE i.processed_at IS NULL AND i.dead_lettered_at IS NULL
        RETURNING attempts
        """)
// What became of an envelope that BEGIN left alone.
@NamedNativeQuery(name = InboxEntry.STATE_OF, resultSetMapping = InboxEntry.STATE, query = """
        SELECT processed_at IS NOT NULL AS processed, dead_lettered_at IS NOT NULL AS dead_lettered, attempts,
               CAST(EXTRACT(EPOCH FROM received_at) * 1000000 AS bigint) AS received_micros, last_error,
               dead_lettered_publication
        FROM {schema}.event_inbox
        WHERE consumer_queue = ?1 AND envelope_id = CAST(?2 AS uuid)
        """)
// A fresh delivery of an envelope this consumer dead-lettered (a replay): a new occurrence starts.
@NamedNativeQuery(name = InboxEntry.RESTART, query = """
        UPDATE {schema}.event_inbox
        SET attempts = 0, received_at = now(), dead_lettered_at = NULL, dead_lettered_publication = NULL,
            last_error = NULL
        WHERE consumer_queue = ?1 AND envelope_id = CAST(?2 AS uuid)
          AND dead_lettered_at IS NOT NULL AND processed_at IS NULL
        """)
// A failed attempt, in a transaction of its own so it survives the handler's rollback. A row already
// processed or dead-lettered (by a concurrent duplicate on another channel or server) is left alone and
// nothing is returned.
@NamedNativeQuery(name = InboxEntry.RECORD_FAILURE, resultSetMapping = InboxEntry.STATE, query = """
        INSERT INTO {schema}.event_inbox AS i (consumer_queue, envelope_id, source_service, event_type, attempts, last_error)
        VALUES (?1, CAST(?2 AS uuid), ?3, ?4, 1, ?5)
        ON CONFLICT (consumer_queue, envelope_id) DO UPDATE
            SET attempts = i.attempts + 1, last_error = EXCLUDED.last_error
            WHERE i.processed_at IS NULL AND i.dead_lettered_at IS NULL
        RETURNING processed_at IS NOT NULL AS processed, dead_lettered_at IS NOT NULL AS dead_lettered, attempts,
                  CAST(EXTRACT(EPOCH FROM received_at) * 1000000 AS bigint) AS received_micros, last_error,
                  dead_lettered_publication
        """)
// ?3 the publication given up on (null for a producer that sends none).
@NamedNativeQuery(name = InboxEntry.MARK_DEAD_LETTERED, query = """
        UPDATE {schema}.event_inbox SET dead_lettered_at = now(), dead_lettered_publication = CAST(?3 AS int)
        WHERE consumer_queue = ?1 AND envelope_id = CAST(?2 AS uuid) AND processed_at IS NULL
          AND dead_lettered_at IS NULL
        """)
// Envelopes of queue ?1 that failed and are still in progress (neither processed nor dead-lettered) though their
// first failure is older than ?2 seconds, the whole retry schedule and a grace: their retry copy is most likely
// lost (a range of the unprocessed index).
@NamedNativeQuery(name = InboxEntry.STALE_IN_PROGRESS, query = """
        SELECT count(*) FROM {schema}.event_inbox
         WHERE consumer_queue = ?1 AND processed_at IS NULL AND dead_lettered_at IS NULL
           AND received_at < now() - make_interval(secs => CAST(?2 AS double precision))
        """)
public class InboxEntry {
    public static final String LAST_DAY = "InboxEntry.lastDay";
    public static final String STALE_IN_PROGRESS = "InboxEntry.staleInProgress";
    static final String QUEUE_STATS = "InboxEntry.queueStats";
    public static final String STATE = "InboxEntry.state";
    public static final String BEGIN = "InboxEntry.begin";
    public static final String STATE_OF = "InboxEntry.stateOf";
    public static final String RESTART = "InboxEntry.restart";
    public static final String RECORD_FAILURE = "InboxEntry.recordFailure";
    public static final String MARK_DEAD_LETTERED = "InboxEntry.markDeadLettered";

    @EmbeddedId
    private Key key;

    @Column(name = "source_service", nullable = false, updatable = false)
    private String sourceService;

    @Column(name = "event_type", nullable = false, updatable = false)
    private String eventType;

    @Column(name = "received_at", insertable = false, updatable = false)
    private OffsetDateTime receivedAt;

    @Column(name = "processed_at", insertable = false, updatable = false)
    private OffsetDateTime processedAt;

    @Column(name = "attempts", insertable = false, updatable = false)
    private int attempts;

    protected InboxEntry() {}

    /** (consumer queue, envelope id): one envelope reaching two consumers is two rows. */
    @Embeddable
    public static class Key implements Serializable {
        private static final long serialVersionUID = 1L;

        @Column(name = "consumer_queue", nullable = false, updatable = false)
        private String consumerQueue;

        @Column(name = "envelope_id", nullable = false, updatable = false)
        private UUID envelopeId;

        protected Key() {}

        public Key(String consumerQueue, UUID envelopeId) {
            this.consumerQueue = Objects.requireNonNull(consumerQueue);
            this.envelopeId = Objects.requireNonNull(envelopeId);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key
                    && key.consumerQueue.equals(consumerQueue)
                    && key.envelopeId.equals(envelopeId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(consumerQueue, envelopeId);
        }
    }
}
