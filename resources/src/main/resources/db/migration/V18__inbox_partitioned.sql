-- The inbox becomes a table partitioned by its envelope ids' day, online, part 2 of 2 (V17;
-- docs/decisions/0094-inbox-partitioned-by-day.md): the rows already there are checked against V17's bound while
-- consumers go on (VALIDATE takes a lock that lets rows be inserted, updated and deleted), then, in one short step
-- under the table's lock, the table as it was becomes event_inbox_legacy, the partition of every envelope id below
-- the bound, of a new partitioned event_inbox with the same columns, checks, indexes and privileges (V16's
-- durability_partition_by_day). A default partition takes any envelope id no other partition covers; the next days
-- get partitions of their own, made ahead from now on by the retention timer.

ALTER TABLE event_inbox VALIDATE CONSTRAINT event_inbox_below_partitions;

-- Retires the oldest of the inbox's partitions whose every envelope id is older than the window (`window_seconds`
-- before `at`), as event_outbox_retire_partitions does the outbox's, one per call: it is detached and dropped, after
-- its rows received within the window (a copy delivered late, a replay) move to the default partition unchanged,
-- when there are at most `most_kept` of them. The call that drops none counts those kept because they hold more
-- (`kept`) and says how far past the window the oldest partition past it that is left is (`behind_seconds`).
-- Callable by a role that may delete from the inbox.
CREATE FUNCTION event_inbox_retire_partitions(window_seconds double precision, at timestamptz DEFAULT now(),
                                              most_kept int DEFAULT 1000)
    RETURNS TABLE (dropped int, kept int, behind_seconds double precision)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    p record;
    keeping bigint;
    busy boolean := false;
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_inbox retires its partitions'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM pg_advisory_xact_lock(1146114644, CAST(CAST(CAST('event_inbox' AS regclass) AS oid) AS int));
    dropped := 0;
    kept := 0;
    behind_seconds := 0;
    IF window_seconds <= 0 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOR p IN SELECT * FROM durability_day_partitions('event_inbox')
              WHERE upper_bound IS NOT NULL AND upper_bound <= durability_uuid7_at(cutoff)
              ORDER BY upper_bound LOOP
        EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s WHERE received_at >= $1 LIMIT %s) k',
                       p.partition, most_kept + 1)
            INTO keeping USING cutoff;
        IF keeping > most_kept THEN
            kept := kept + 1;
        ELSIF NOT busy
              AND durability_retire_day_partition('event_inbox', p.partition, 'received_at >= $1', cutoff, NULL) THEN
            dropped := 1;
            RETURN NEXT;
            RETURN;
        ELSE
            busy := true;
        END IF;
        behind_seconds := greatest(behind_seconds,
                                   extract(epoch FROM cutoff - durability_uuid7_time(p.upper_bound)));
    END LOOP;
    RETURN NEXT;
END;
$$;

-- Deletes up to `batch` rows received before the window (`window_seconds` before `at`) from the inbox's partitions
-- no day covers, and returns how many. Callable by a role that may delete from the inbox.
CREATE FUNCTION event_inbox_prune_rows(window_seconds double precision, batch int, at timestamptz DEFAULT now())
    RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_inbox prunes it'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_prune_rows('event_inbox', 'consumer_queue, envelope_id', 'received_at < $1', 'received_at',
                                 coalesce(at, now()) - window_seconds * interval '1 second', batch, false);
END;
$$;

-- How far past the window, in seconds, the oldest row event_inbox_prune_rows deletes is: 0 when none is left. (A day
-- partition past the window that is left says so through event_inbox_retire_partitions.) Callable by a role that
-- may read the inbox.
CREATE FUNCTION event_inbox_overdue(window_seconds double precision, at timestamptz DEFAULT now())
    RETURNS double precision LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'SELECT') THEN
        RAISE EXCEPTION 'only a role that may read event_inbox measures it' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_rows_overdue('event_inbox', 'received_at < $1', 'received_at',
                                   coalesce(at, now()) - window_seconds * interval '1 second', false);
END;
$$;

SELECT durability_partition_by_day('event_inbox', 'envelope_id');
SELECT durability_make_day_partitions('event_inbox');
-- The search path of the functions above, as V16 pinned the others'.
SELECT durability_pin_search_path();
