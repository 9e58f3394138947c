-- The inbox becomes a table partitioned by its envelope ids' day, online, part 2 of 2 (V17;
-- docs/decisions/0094-inbox-partitioned-by-day.md): the rows already there are checked against V17's bound while
-- consumers go on (VALIDATE takes a lock that lets rows be inserted, updated and deleted), then, in one short step
-- under the table's lock, the table as it was becomes event_inbox_legacy, the partition of every envelope id below
-- the bound, of a new partitioned event_inbox with the same columns, checks, indexes and privileges (V16's
-- durability_partition_by_day). A default partition takes any envelope id no other partition covers; the next days
-- get partitions of their own, made ahead from now on by the retention timer.

ALTER TABLE event_inbox VALIDATE CONSTRAINT event_inbox_below_partitions;

-- Retires the oldest of the inbox's partitions whose every envelope id is older than the window (`window_seconds`
-- before `at`), as durability_retire_day_partitions says, its rows received within the window (a copy delivered
-- late, a replay) moved out first when there are at most `most_kept`. Callable by a role that may delete from the
-- inbox.
CREATE FUNCTION event_inbox_retire_partitions(window_seconds double precision, at timestamptz DEFAULT now(),
                                              most_kept int DEFAULT 1000)
    RETURNS TABLE (dropped int, kept int, behind_seconds double precision)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_inbox retires its partitions'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF window_seconds <= 0 THEN
        RETURN QUERY SELECT 0, 0, CAST(0 AS double precision);
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM durability_retire_day_partitions('event_inbox',
        'SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE received_at >= $1 LIMIT %2$s) k', 'received_at >= $1',
        coalesce(at, now()) - window_seconds * interval '1 second',
        coalesce(at, now()) - window_seconds * interval '1 second', NULL, most_kept);
END;
$$;

-- Deletes up to `batch` rows received before the window (`window_seconds` before `at`) from the partitions
-- durability_pruned_partitions names, and returns how many. Callable by a role that may delete from the inbox.
CREATE FUNCTION event_inbox_prune_rows(window_seconds double precision, batch int, at timestamptz DEFAULT now())
    RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_inbox prunes it'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_prune_rows('event_inbox', 'consumer_queue, envelope_id', 'received_at < $1', 'received_at',
                                 window_seconds, at, batch, false);
END;
$$;

-- How far past the window, in seconds, the oldest row event_inbox_prune_rows deletes is: 0 when none is left. (A day
-- partition past the window that is left says so through event_inbox_retire_partitions.) Callable by a role that may
-- read the inbox.
CREATE FUNCTION event_inbox_overdue(window_seconds double precision, at timestamptz DEFAULT now())
    RETURNS double precision LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_inbox', 'SELECT') THEN
        RAISE EXCEPTION 'only a role that may read event_inbox measures it' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_rows_overdue('event_inbox', 'received_at < $1', 'received_at', window_seconds, at, false);
END;
$$;

SELECT durability_partition_by_day('event_inbox', 'envelope_id');
SELECT durability_make_day_partitions('event_inbox');
-- The search path of the functions above, as V16 pinned the others'.
SELECT durability_pin_search_path();
