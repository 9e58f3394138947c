-- The outbox becomes a table partitioned by its ids' day, online, part 2 of 2 (V15; docs/decisions/0093-...),
-- with the functions every day-partitioned table is made, converted and retired with:
-- the rows already there are checked against V15's bound while staging goes on (VALIDATE takes a lock that lets
-- rows be inserted, updated and deleted), then, in one short step under the table's lock, the table as it was
-- becomes event_outbox_legacy, the partition of every id below the bound, of a new partitioned event_outbox with
-- the same columns, checks, indexes, triggers and privileges. A default partition takes any id no other
-- partition covers; the next days get partitions of their own, made ahead from now on by the retention timer.

ALTER TABLE event_outbox VALIDATE CONSTRAINT event_outbox_below_partitions;

-- A day-partitioned table's partitions (`tbl`: event_outbox, event_inbox), each with its bounds (null: below every
-- key, or none for the default partition) and whether it is a day's. The others (<tbl>_legacy, <tbl>_default) lose
-- rows one by one.
CREATE FUNCTION durability_day_partitions(tbl text)
    RETURNS TABLE (partition regclass, lower_bound uuid, upper_bound uuid, by_day boolean)
    LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.oid::regclass,
           CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \(''([0-9a-f-]{36})''\)') AS uuid),
           CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([0-9a-f-]{36})''\)') AS uuid),
           c.relname ~ ('^' || tbl || '_[0-9]{8}$')
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = CAST(quote_ident(tbl) AS regclass)
$$;

-- Makes a day-partitioned table's day partitions (UTC days, named <tbl>_YYYYMMDD) of `at`'s day (null: now) and the
-- three after it that no partition covers yet, and returns how many it made. A day whose keys the default partition
-- already holds rows of (a clock days ahead, keys that are no UUIDv7) stays in the default partition. Each is made
-- empty, with the default partition's storage settings, and attached (a lock that lets writes go on, and a short one
-- on the default partition while it is checked), within 1 s of waiting for a lock, or left for the next run; so is
-- the whole call while another server makes partitions of the table. Callable by a role that may insert into the
-- table.
CREATE FUNCTION durability_make_day_partitions(tbl text, at timestamptz DEFAULT now()) RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '1s' AS $$
DECLARE
    made int := 0;
    day timestamptz;
    first_day timestamptz;
    part text;
    covered boolean;
    key text;
    storage text;
    taken boolean;
BEGIN
    IF tbl IS NULL OR tbl NOT IN ('event_outbox', 'event_inbox') THEN
        RAISE EXCEPTION 'event_outbox and event_inbox are partitioned by day, not %', tbl
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF NOT has_table_privilege(session_user, quote_ident(tbl), 'INSERT') THEN
        RAISE EXCEPTION 'only a role that may insert into % makes its partitions', tbl
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- One server at a time makes them; another one meanwhile leaves them to it.
    IF NOT pg_try_advisory_xact_lock(1146114644, CAST(CAST(CAST(quote_ident(tbl) AS regclass) AS oid) AS int)) THEN
        RETURN 0;
    END IF;
    SELECT quote_ident(a.attname) INTO key
      FROM pg_partitioned_table t
      JOIN pg_attribute a ON a.attrelid = t.partrelid AND a.attnum = t.partattrs[0]
     WHERE t.partrelid = CAST(quote_ident(tbl) AS regclass);
    -- Storage settings as the table's (docs/decisions/0034-vacuum-settings.md), which its default partition holds.
    SELECT coalesce(' WITH (' || array_to_string(reloptions, ', ') || ')', '') INTO storage
      FROM pg_class
     WHERE oid = CAST(quote_ident(tbl || '_default') AS regclass);
    first_day := CAST(date_trunc('day', coalesce(at, now()) AT TIME ZONE 'UTC') AS timestamp) AT TIME ZONE 'UTC';
    day := first_day;
    -- Each day on its own: days a partition already covers (the table as it was, below its bound; a day made by an
    -- earlier run, or by a call judging at another moment) are skipped, and none is left out after them.
    WHILE day < first_day + interval '96 hours' LOOP
        part := tbl || '_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
        SELECT EXISTS (SELECT 1 FROM durability_day_partitions(tbl)
                        WHERE upper_bound > durability_uuid7_at(day)
                          AND (lower_bound IS NULL OR lower_bound < durability_uuid7_at(day + interval '24 hours')))
          INTO covered;
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %1$I WHERE %2$s >= $1 AND %2$s < $2)', tbl || '_default', key)
            INTO taken USING durability_uuid7_at(day), durability_uuid7_at(day + interval '24 hours');
        IF NOT covered AND NOT taken THEN
            BEGIN
                EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS'
                               ' INCLUDING GENERATED INCLUDING STORAGE)%s', part, tbl, storage);
                EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', tbl, part,
                               durability_uuid7_at(day), durability_uuid7_at(day + interval '24 hours'));
                made := made + 1;
            EXCEPTION WHEN lock_not_available THEN
                RETURN made;
            END;
        END IF;
        day := day + interval '24 hours';
    END LOOP;
    RETURN made;
END;
$$;

-- Detaches the day partition `part` of `tbl` and drops it, after the rows matching `keeps` (its parameters $1 and
-- $2) move to the default partition unchanged, in the caller's transaction under the table's exclusive lock, taken
-- in 20 attempts (about 2 s, none waiting more than 100 ms). False when the lock did not come: nothing changed.
-- Only for the retention functions of the tables, which run as the owner and say what a table keeps.
CREATE FUNCTION durability_retire_day_partition(tbl text, part regclass, keeps text, p1 timestamptz, p2 timestamptz)
    RETURNS boolean LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    columns text;
BEGIN
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO columns
      FROM pg_attribute
     WHERE attrelid = CAST(quote_ident(tbl) AS regclass) AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
    PERFORM durability_lock_exclusively(tbl, 20);
    EXECUTE format('ALTER TABLE %I DETACH PARTITION %s', tbl, part);
    EXECUTE format('INSERT INTO %1$I (%2$s) SELECT %2$s FROM %3$s WHERE %4$s', tbl, columns, part, keeps)
        USING p1, p2;
    EXECUTE format('DROP TABLE %s', part);
    RETURN true;
EXCEPTION WHEN lock_not_available THEN
    RETURN false;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_retire_day_partition(text, regclass, text, timestamptz, timestamptz) FROM PUBLIC;

-- Retires the oldest of `tbl`'s partitions whose every key is older than `cutoff`: it is detached and dropped, after
-- the rows matching `keeps` move to the default partition unchanged (durability_retire_day_partition), when
-- `counting` (a query of the partition, %1$s, counting at most %2$s of those rows) finds at most `most_kept`. Both
-- take the parameters $1 and $2 (`p1`, `p2`). One partition per call (`dropped` 1), so that the table's exclusive
-- lock, held until the call's transaction ends, covers one partition's move and drop: the caller calls again until
-- none is dropped. That last call counts the partitions past the cutoff kept because they hold more (`kept`), and
-- says how far past the cutoff the oldest partition left is (`behind_seconds`: kept, or its lock did not come).
-- Only for the retention functions of the tables, which say what a table keeps.
CREATE FUNCTION durability_retire_day_partitions(tbl text, counting text, keeps text, cutoff timestamptz,
                                                 p1 timestamptz, p2 timestamptz, most_kept int)
    RETURNS TABLE (dropped int, kept int, behind_seconds double precision)
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    p record;
    keeping bigint;
    busy boolean := false;
BEGIN
    PERFORM pg_advisory_xact_lock(1146114644, CAST(CAST(CAST(quote_ident(tbl) AS regclass) AS oid) AS int));
    dropped := 0;
    kept := 0;
    behind_seconds := 0;
    FOR p IN SELECT * FROM durability_day_partitions(tbl)
              WHERE upper_bound IS NOT NULL AND upper_bound <= durability_uuid7_at(cutoff)
              ORDER BY upper_bound LOOP
        EXECUTE format(counting, p.partition, most_kept + 1) INTO keeping USING p1, p2;
        IF keeping > most_kept THEN
            kept := kept + 1;
        ELSIF NOT busy AND durability_retire_day_partition(tbl, p.partition, keeps, p1, p2) THEN
            dropped := 1;
            RETURN NEXT;
            RETURN;
        ELSE
            -- Its lock did not come (in this call, or for an earlier partition): left for the next run.
            busy := true;
        END IF;
        behind_seconds := greatest(behind_seconds, extract(epoch FROM cutoff - durability_uuid7_time(p.upper_bound)));
    END LOOP;
    RETURN NEXT;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_retire_day_partitions(text, text, text, timestamptz, timestamptz, timestamptz, int)
    FROM PUBLIC;

-- The rules of a table's row pruning, in one place. A window of 0 keeps rows forever. Rows are deleted one by one from
-- the partitions no day covers (a day partition goes whole once past the window), or from every partition when the
-- rows' own window may end before their day partition is retired (`every_partition`: unroutable outbox rows), or when
-- the window is shorter than the day a partition spans, which would keep rows up to a day past a window of minutes
-- (docs/decisions/0093). Only for the functions below.
CREATE FUNCTION durability_pruned_partitions(tbl text, window_seconds double precision, every_partition boolean)
    RETURNS SETOF regclass LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT partition FROM durability_day_partitions(tbl)
     WHERE window_seconds > 0 AND (every_partition OR window_seconds < 86400 OR NOT by_day)
     ORDER BY upper_bound NULLS LAST
$$;
REVOKE EXECUTE ON FUNCTION durability_pruned_partitions(text, double precision, boolean) FROM PUBLIC;

-- Deletes up to `batch` rows matching `condition` (its parameter $1: `window_seconds` before `at`) from the partitions
-- durability_pruned_partitions names, the oldest by `age` first, and returns how many. Only for the retention
-- functions of the tables.
CREATE FUNCTION durability_prune_rows(tbl text, key text, condition text, age text, window_seconds double precision,
                                      at timestamptz, batch int, every_partition boolean)
    RETURNS int LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    p regclass;
    deleted int := 0;
    rows int;
BEGIN
    FOR p IN SELECT * FROM durability_pruned_partitions(tbl, window_seconds, every_partition) LOOP
        EXIT WHEN deleted >= batch;
        -- The condition again on the rows deleted: one changed since it was picked stays (docs/decisions/0033).
        EXECUTE format('DELETE FROM %1$s WHERE (%2$s) IN (SELECT %2$s FROM %1$s WHERE %3$s ORDER BY %4$s LIMIT $2)'
                       ' AND %3$s', p, key, condition, age)
            USING coalesce(at, now()) - window_seconds * interval '1 second', batch - deleted;
        GET DIAGNOSTICS rows = ROW_COUNT;
        deleted := deleted + rows;
    END LOOP;
    RETURN deleted;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_prune_rows(text, text, text, text, double precision, timestamptz, int, boolean)
    FROM PUBLIC;

-- How far, in seconds, the oldest row matching `condition` (its parameter $1, the cutoff: `window_seconds` before
-- `at`) of the partitions durability_pruned_partitions names is before the cutoff, by `age`: 0 when there is none.
CREATE FUNCTION durability_rows_overdue(tbl text, condition text, age text, window_seconds double precision,
                                        at timestamptz, every_partition boolean)
    RETURNS double precision LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    p regclass;
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    oldest timestamptz;
    behind double precision := 0;
BEGIN
    FOR p IN SELECT * FROM durability_pruned_partitions(tbl, window_seconds, every_partition) LOOP
        EXECUTE format('SELECT %3$s FROM %1$s WHERE %2$s ORDER BY %3$s LIMIT 1', p, condition, age)
            INTO oldest USING cutoff;
        IF oldest IS NOT NULL THEN
            behind := greatest(behind, extract(epoch FROM cutoff - oldest));
        END IF;
    END LOOP;
    RETURN behind;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_rows_overdue(text, text, text, double precision, timestamptz, boolean)
    FROM PUBLIC;

-- Retires the oldest of the outbox's partitions whose every id is older than the published rows' window
-- (`window_seconds` before `at`), as durability_retire_day_partitions says, the rows retention keeps (pending,
-- unroutable within their own window or kept forever, published within the window) moved out first when there are at
-- most `most_kept`. A window of 0 keeps published rows forever: nothing retires. Callable by a role that may delete
-- from the outbox.
CREATE FUNCTION event_outbox_retire_partitions(window_seconds double precision,
                                               unroutable_window_seconds double precision,
                                               at timestamptz DEFAULT now(), most_kept int DEFAULT 1000)
    RETURNS TABLE (dropped int, kept int, behind_seconds double precision)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    unroutable_cutoff timestamptz := CASE WHEN unroutable_window_seconds > 0
        THEN coalesce(at, now()) - unroutable_window_seconds * interval '1 second' END;
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_outbox retires its partitions'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF window_seconds <= 0 THEN
        RETURN QUERY SELECT 0, 0, CAST(0 AS double precision);
        RETURN;
    END IF;
    -- Each of the three counted through its own index (pending, unroutable, created_at).
    RETURN QUERY SELECT * FROM durability_retire_day_partitions('event_outbox',
        'SELECT (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE published_at IS NULL AND unroutable_at IS NULL'
        || ' LIMIT %2$s) a) + (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE unroutable_at IS NOT NULL'
        || ' AND published_at IS NULL AND ($1 IS NULL OR created_at >= $1) LIMIT %2$s) b)'
        || ' + (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE created_at >= $2 LIMIT %2$s) c)',
        '(published_at IS NULL AND unroutable_at IS NULL)'
        || ' OR (unroutable_at IS NOT NULL AND published_at IS NULL AND ($1 IS NULL OR created_at >= $1))'
        || ' OR created_at >= $2',
        cutoff, unroutable_cutoff, cutoff, most_kept);
END;
$$;

-- The outbox rows of `kind` that retention deletes one by one once past their window, as a condition on the cutoff
-- (its parameter $1): 'published' or 'unroutable' (these from every partition: their window is their own, and a day
-- partition may outlive it). Only for the outbox's retention functions.
CREATE FUNCTION event_outbox_pruned_rows(kind text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE SET search_path FROM CURRENT AS $$
DECLARE
    condition text := CASE kind
        WHEN 'published' THEN 'created_at < $1 AND published_at IS NOT NULL'
        WHEN 'unroutable' THEN 'created_at < $1 AND published_at IS NULL AND unroutable_at IS NOT NULL' END;
BEGIN
    IF condition IS NULL THEN
        RAISE EXCEPTION 'kind is published or unroutable, not %', kind USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN condition;
END;
$$;
REVOKE EXECUTE ON FUNCTION event_outbox_pruned_rows(text) FROM PUBLIC;

-- Deletes up to `batch` rows of `kind` ('published' or 'unroutable') created more than `window_seconds` before
-- `at`, from the partitions durability_pruned_partitions names, and returns how many. Callable by a role that may
-- delete from the outbox (it could delete them itself, from the partitioned table).
CREATE FUNCTION event_outbox_prune_rows(kind text, window_seconds double precision, batch int,
                                        at timestamptz DEFAULT now())
    RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_outbox prunes it'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_prune_rows('event_outbox', 'id', event_outbox_pruned_rows(kind), 'created_at', window_seconds,
                                 at, batch, kind = 'unroutable');
END;
$$;

-- How far past its window, in seconds, the oldest row of `kind` that event_outbox_prune_rows deletes is: 0 when none
-- is left. (A day partition past the window that is left says so through event_outbox_retire_partitions.) Callable
-- by a role that may read the outbox.
CREATE FUNCTION event_outbox_overdue(kind text, window_seconds double precision, at timestamptz DEFAULT now())
    RETURNS double precision LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'SELECT') THEN
        RAISE EXCEPTION 'only a role that may read event_outbox measures it' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN durability_rows_overdue('event_outbox', event_outbox_pruned_rows(kind), 'created_at', window_seconds, at,
                                   kind = 'unroutable');
END;
$$;

-- Sets the search path of every function of this schema named durability_*, event_outbox_* or event_inbox_* to this
-- schema, then pg_temp (searched first when a path leaves it out). Only for migrations.
CREATE FUNCTION durability_pin_search_path() RETURNS void
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT CAST(p.oid AS regprocedure) AS signature
               FROM pg_proc p
              WHERE p.pronamespace = CAST(CAST(current_schema() AS text) AS regnamespace)
                AND (p.proname LIKE 'durability\_%' OR p.proname LIKE 'event\_outbox\_%'
                     OR p.proname LIKE 'event\_inbox\_%') LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f.signature, current_schema());
    END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_pin_search_path() FROM PUBLIC;

-- Turns `tbl`, checked below a bound by its constraint <tbl>_below_partitions, into a table partitioned by range of
-- `key` in one short step under its exclusive lock (taken in attempts): the table as it was becomes <tbl>_legacy,
-- the partition of every key below the bound, of a new partitioned <tbl> with the same columns, checks, indexes,
-- triggers and privileges, and <tbl>_default takes any key no other partition covers. Only for migrations.
CREATE FUNCTION durability_partition_by_day(tbl text, key text) RETURNS void
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    legacy text := tbl || '_legacy';
    bound uuid;
    primary_key text;
    storage text;
    indexes text[];
    triggers text[];
    trigger_names text[];
    definition text;
    granted record;
BEGIN
    SELECT CAST(substring(pg_get_constraintdef(oid) FROM '''([0-9a-f-]{36})''') AS uuid) INTO bound
      FROM pg_constraint
     WHERE conname = tbl || '_below_partitions' AND conrelid = CAST(quote_ident(tbl) AS regclass);
    SELECT pg_get_constraintdef(oid) INTO primary_key
      FROM pg_constraint
     WHERE contype = 'p' AND conrelid = CAST(quote_ident(tbl) AS regclass);
    SELECT coalesce(' WITH (' || array_to_string(reloptions, ', ') || ')', '') INTO storage
      FROM pg_class
     WHERE oid = CAST(quote_ident(tbl) AS regclass);
    -- The indexes and triggers as they are now, to be made again on the partitioned table under the same names.
    SELECT array_agg(pg_get_indexdef(indexrelid)) INTO indexes
      FROM pg_index
     WHERE indrelid = CAST(quote_ident(tbl) AS regclass) AND NOT indisprimary;
    SELECT array_agg(pg_get_triggerdef(oid)), array_agg(tgname) INTO triggers, trigger_names
      FROM pg_trigger
     WHERE tgrelid = CAST(quote_ident(tbl) AS regclass) AND NOT tgisinternal;

    PERFORM durability_lock_exclusively(tbl, 3000);
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, legacy);
    FOR definition IN SELECT c.relname
                        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                       WHERE i.indrelid = CAST(quote_ident(legacy) AS regclass) LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', definition,
                       legacy || '_' || substr(definition, length(tbl || '_') + 1));
    END LOOP;

    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED'
                   ' INCLUDING STORAGE) PARTITION BY RANGE (%I)', tbl, legacy, key);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', tbl, tbl || '_below_partitions');
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, tbl || '_pkey', primary_key);
    FOREACH definition IN ARRAY coalesce(indexes, ARRAY[]::text[]) LOOP
        EXECUTE definition;
    END LOOP;
    -- A row trigger on the partitioned table is every partition's: the legacy table's own go first.
    FOREACH definition IN ARRAY coalesce(trigger_names, ARRAY[]::text[]) LOOP
        EXECUTE format('DROP TRIGGER %I ON %I', definition, legacy);
    END LOOP;
    FOREACH definition IN ARRAY coalesce(triggers, ARRAY[]::text[]) LOOP
        EXECUTE definition;
    END LOOP;
    -- Checked by the bound and its indexes matched by definition: attaching it scans nothing.
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', tbl, legacy, bound);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT%s', tbl || '_default', tbl, storage);
    -- Whoever could use the table as it was can use the partitioned one (docs/grants/postgresql.sql).
    FOR granted IN SELECT a.grantee, a.privilege_type
                     FROM pg_class c, aclexplode(c.relacl) a
                    WHERE c.oid = CAST(quote_ident(legacy) AS regclass) AND a.grantee <> c.relowner LOOP
        EXECUTE format('GRANT %s ON %I TO %s', granted.privilege_type, tbl,
                       CASE WHEN granted.grantee = 0 THEN 'PUBLIC'
                            ELSE quote_ident(pg_get_userbyid(granted.grantee)) END);
    END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_partition_by_day(text, text) FROM PUBLIC;

SELECT durability_partition_by_day('event_outbox', 'id');
SELECT durability_make_day_partitions('event_outbox');

-- Every function of the schema searches the schema, then the session's temporary objects, and nothing else: a
-- temporary table of the caller's named like one of the schema's cannot stand in for it, in a function that runs as
-- the owner or in one it calls (docs/decisions/0093-outbox-partitioned-by-day.md).
SELECT durability_pin_search_path();
