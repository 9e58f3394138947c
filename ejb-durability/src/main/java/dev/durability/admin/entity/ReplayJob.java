package dev.durability.admin.entity;

import jakarta.persistence.ColumnResult;
import jakarta.persistence.ConstructorResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;
import java.util.UUID;

/**
 * A row of {@code replay_job}: one replay, restaged in slices (docs/decisions/0084-replay-as-a-job.md). Its
 * invariants are the table's (a window from before to, one running job per overlapping window, ended exactly when
 * no longer running); rows change only through the statements below, which run on the database clock.
 */
@Entity
@Table(name = "replay_job")
@SqlResultSetMapping(
        name = ReplayJob.STATUS,
        classes =
                @ConstructorResult(
                        targetClass = ReplayJobStatus.class,
                        columns = {
                            @ColumnResult(name = "id", type = String.class),
                            @ColumnResult(name = "window_from", type = String.class),
                            @ColumnResult(name = "window_to", type = String.class),
                            @ColumnResult(name = "event_type", type = String.class),
                            @ColumnResult(name = "scope", type = String.class),
                            @ColumnResult(name = "state", type = String.class),
                            @ColumnResult(name = "principal", type = String.class),
                            @ColumnResult(name = "channel", type = String.class),
                            @ColumnResult(name = "matched", type = Long.class),
                            @ColumnResult(name = "restaged", type = Long.class),
                            @ColumnResult(name = "pending", type = Long.class),
                            @ColumnResult(name = "slices", type = Integer.class),
                            @ColumnResult(name = "longest_slice_ms", type = Double.class),
                            @ColumnResult(name = "started_at", type = String.class),
                            @ColumnResult(name = "ended_at", type = String.class),
                            @ColumnResult(name = "cancelled_by", type = String.class),
                            @ColumnResult(name = "last_error", type = String.class)
                        }))
@SqlResultSetMapping(
        name = ReplayJob.TAKEN,
        classes =
                @ConstructorResult(
                        targetClass = TakenReplayJob.class,
                        columns = {
                            @ColumnResult(name = "id", type = String.class),
                            @ColumnResult(name = "window_from", type = String.class),
                            @ColumnResult(name = "window_to", type = String.class),
                            @ColumnResult(name = "event_type", type = String.class),
                            @ColumnResult(name = "only_unroutable", type = Boolean.class),
                            @ColumnResult(name = "after_created_at", type = String.class),
                            @ColumnResult(name = "after_id", type = String.class),
                            @ColumnResult(name = "replay_traceparent", type = String.class),
                            @ColumnResult(name = "cancelling", type = Boolean.class)
                        }))
// Serializes the starts of replay jobs in the database, so that the check for a running job of an overlapping
// window and the insert are one step across servers. Held until the starting transaction ends.
@NamedNativeQuery(name = ReplayJob.LOCK_STARTS, query = """
        SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext('{schema}.replay_job'))) l
        """)
// The running job whose window overlaps [?1, ?2), the oldest if several (there is at most one).
@NamedNativeQuery(name = ReplayJob.RUNNING_OVERLAPPING, query = """
        SELECT CAST(id AS text) FROM {schema}.replay_job
         WHERE state = 'running'
           AND tstzrange(window_from, window_to) && tstzrange(CAST(?1 AS timestamptz), CAST(?2 AS timestamptz))
         ORDER BY started_at LIMIT 1
        """)
// ?1 id, ?2 from, ?3 to, ?4 event type or null, ?5 scope, ?6 principal, ?7 channel, ?8 rows matched at the
// start, ?9 the replay span's traceparent or null.
@NamedNativeQuery(name = ReplayJob.START, query = """
        INSERT INTO {schema}.replay_job (id, window_from, window_to, event_type, scope, principal, channel, matched,
                                replay_traceparent)
        VALUES (CAST(?1 AS uuid), CAST(?2 AS timestamptz), CAST(?3 AS timestamptz), CAST(?4 AS text), ?5, ?6, ?7, ?8,
                CAST(?9 AS text))
        """)
// Takes the oldest running job this worker (?1) may work: one nobody holds, its own, or one whose holder's lease
// ended (a server that died mid-job). Locks its row for the rest of the slice's transaction, so no other server
// works the job meanwhile, and renews the lease for ?2 s. Jobs other servers hold are skipped, not waited for.
@NamedNativeQuery(name = ReplayJob.TAKE, resultSetMapping = ReplayJob.TAKEN, query = """
        UPDATE {schema}.replay_job j
           SET worker = CAST(?1 AS text), lease_until = now() + make_interval(secs => ?2)
          FROM (SELECT id FROM {schema}.replay_job
                 WHERE state = 'running'
                   AND (worker IS NULL OR worker = CAST(?1 AS text) OR lease_until <= now())
                 ORDER BY started_at, id
                 LIMIT 1
                   FOR UPDATE SKIP LOCKED) t
         WHERE j.id = t.id
        RETURNING CAST(j.id AS text) AS id, CAST(j.window_from AS text) AS window_from,
                  CAST(j.window_to AS text) AS window_to, j.event_type, j.scope = 'unroutable' AS only_unroutable,
                  CAST(j.after_created_at AS text) AS after_created_at, CAST(j.after_id AS text) AS after_id,
                  j.replay_traceparent, j.cancelled_by IS NOT NULL AS cancelling
        """)
// A slice's progress, committed with the slice: ?2 rows restaged, ?3 pending rows left alone, the position after
// the slice (?4, ?5; null when it looked at no row), and ?6 true when the window is done. The longest slice is
// measured from the start of the slice's transaction to this statement.
@NamedNativeQuery(name = ReplayJob.PROGRESS, query = """
        UPDATE {schema}.replay_job
           SET restaged = restaged + ?2, pending = pending + ?3, slices = slices + 1,
               after_created_at = COALESCE(CAST(?4 AS timestamptz), after_created_at),
               after_id = COALESCE(CAST(?5 AS uuid), after_id),
               longest_slice_ms = GREATEST(longest_slice_ms, 1000 * EXTRACT(EPOCH FROM clock_timestamp() - now())),
               failed_slices = 0,
               state = CASE WHEN CAST(?6 AS boolean) THEN 'done' ELSE state END,
               ended_at = CASE WHEN CAST(?6 AS boolean) THEN clock_timestamp() END,
               lease_until = CASE WHEN CAST(?6 AS boolean) THEN NULL ELSE lease_until END
         WHERE id = CAST(?1 AS uuid) AND state = 'running'
        """)
// Ends running job ?1 as ?2 (cancelled or failed), keeping what its slices restaged.
@NamedNativeQuery(name = ReplayJob.END, query = """
        UPDATE {schema}.replay_job SET state = ?2, ended_at = clock_timestamp(), lease_until = NULL
         WHERE id = CAST(?1 AS uuid) AND state = 'running'
        """)
// A slice of job ?1 failed with error ?2 (its transaction rolled back): counted; the ?3rd failure in a row fails
// the job. Answers the job's state after it.
@NamedNativeQuery(name = ReplayJob.SLICE_FAILED, query = """
        UPDATE {schema}.replay_job
           SET failed_slices = failed_slices + 1, last_error = left(CAST(?2 AS text), 2000),
               state = CASE WHEN failed_slices + 1 >= ?3 THEN 'failed' ELSE state END,
               ended_at = CASE WHEN failed_slices + 1 >= ?3 THEN clock_timestamp() END,
               lease_until = CASE WHEN failed_slices + 1 >= ?3 THEN NULL ELSE lease_until END
         WHERE id = CAST(?1 AS uuid) AND state = 'running'
        RETURNING state
        """)
// Asks running job ?1 to stop before its next slice, on behalf of ?2 (the first who asked is kept). Waits for a
// slice in progress to commit: slices are short.
@NamedNativeQuery(name = ReplayJob.REQUEST_CANCEL, query = """
        UPDATE {schema}.replay_job SET cancelled_by = COALESCE(cancelled_by, ?2)
         WHERE id = CAST(?1 AS uuid) AND state = 'running'
        """)
// Job ?1 as operators see it.
@NamedNativeQuery(
        name = ReplayJob.STATUS_OF,
        resultSetMapping = ReplayJob.STATUS,
        query = ReplayJob.STATUS_SELECT + """
         WHERE id = CAST(?1 AS uuid)
        """)
// The ?1 most recently started jobs, newest first.
@NamedNativeQuery(name = ReplayJob.RECENT, resultSetMapping = ReplayJob.STATUS, query = ReplayJob.STATUS_SELECT + """
         ORDER BY started_at DESC, id
         LIMIT ?1
        """)
public class ReplayJob {
    public static final String LOCK_STARTS = "ReplayJob.lockStarts";
    public static final String RUNNING_OVERLAPPING = "ReplayJob.runningOverlapping";
    public static final String START = "ReplayJob.start";
    public static final String TAKE = "ReplayJob.take";
    public static final String PROGRESS = "ReplayJob.progress";
    public static final String END = "ReplayJob.end";
    public static final String SLICE_FAILED = "ReplayJob.sliceFailed";
    public static final String REQUEST_CANCEL = "ReplayJob.requestCancel";
    public static final String STATUS_OF = "ReplayJob.statusOf";
    public static final String RECENT = "ReplayJob.recent";
    static final String STATUS = "ReplayJob.status";
    static final String TAKEN = "ReplayJob.taken";

    /** Instants as RFC 3339 in UTC, to the microsecond the column holds. */
    static final String STATUS_SELECT = """
        SELECT CAST(id AS text) AS id,
               to_char(window_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS window_from,
               to_char(window_to AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS window_to,
               event_type, scope, state, principal, channel, matched, restaged, pending, slices, longest_slice_ms,
               to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS started_at,
               to_char(ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ended_at,
               cancelled_by, last_error
          FROM {schema}.replay_job
        """;

    @Id
    private UUID id;

    protected ReplayJob() {}
}
