-- The outbox becomes a table partitioned by its ids' day, online, part 2 of 2 (V15; docs/decisions/0093-...):
-- the rows already there are checked against V15's bound while staging goes on (VALIDATE takes a lock that lets
-- rows be inserted, updated and deleted), then, in one short step under the table's lock, the table as it was
-- becomes event_outbox_legacy, the partition of every id below the bound, of a new partitioned event_outbox with
-- the same columns, checks, indexes, triggers and privileges. A default partition takes any id no other
-- partition covers; the next days get partitions of their own, made ahead from now on by the retention timer.

ALTER TABLE event_outbox VALIDATE CONSTRAINT event_outbox_below_partitions;

-- The outbox's partitions, each with its bounds (null: below every id, or none for the default partition) and
-- whether it is a day's. The others (event_outbox_legacy, event_outbox_default) lose rows one by one.
CREATE FUNCTION event_outbox_partitions()
    RETURNS TABLE (partition regclass, lower_bound uuid, upper_bound uuid, by_day boolean)
    LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.oid::regclass,
           CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \(''([0-9a-f-]{36})''\)') AS uuid),
           CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([0-9a-f-]{36})''\)') AS uuid),
           c.relname ~ '^event_outbox_[0-9]{8}$'
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = CAST('event_outbox' AS regclass)
$$;

-- Makes the day partitions (UTC days, named event_outbox_YYYYMMDD) after the newest one through the third day
-- after `at`'s (null: now), and returns how many it made. A day whose ids the default partition already holds
-- rows of (a clock days ahead, ids that are no UUIDv7) stays in the default partition. Each is made empty and
-- attached (a lock that lets staging go on, and a short one on the default partition while it is checked),
-- within 1 s of waiting for a lock, or left for the next run. Callable by a role that may insert into the outbox.
CREATE FUNCTION event_outbox_make_partitions(at timestamptz DEFAULT now()) RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '1s' AS $$
DECLARE
    made int := 0;
    day timestamptz;
    last_day timestamptz;
    part text;
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'INSERT') THEN
        RAISE EXCEPTION 'only a role that may insert into event_outbox makes its partitions'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- Servers making partitions at once take turns; the later finds them made.
    PERFORM pg_advisory_xact_lock(1146114644, CAST(CAST(CAST('event_outbox' AS regclass) AS oid) AS int));
    at := coalesce(at, now());
    last_day := CAST(date_trunc('day', at AT TIME ZONE 'UTC') AS timestamp) AT TIME ZONE 'UTC' + interval '96 hours';
    -- After the newest partition; from today on when it ended before (no server ran for days) or none is left:
    -- the days between stay in the default partition.
    SELECT event_outbox_uuid_time(upper_bound) INTO day
      FROM event_outbox_partitions()
     WHERE upper_bound IS NOT NULL
     ORDER BY upper_bound DESC
     LIMIT 1;
    day := greatest(day, last_day - interval '96 hours');
    WHILE day < last_day LOOP
        part := 'event_outbox_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
        IF NOT EXISTS (SELECT 1 FROM event_outbox_default
                        WHERE id >= event_outbox_uuid_at(day) AND id < event_outbox_uuid_at(day + interval '24 hours'))
        THEN
            BEGIN
                -- Storage settings as the outbox's (docs/decisions/0034-vacuum-settings.md).
                EXECUTE format('CREATE TABLE %I (LIKE event_outbox INCLUDING DEFAULTS INCLUDING CONSTRAINTS'
                               ' INCLUDING GENERATED INCLUDING STORAGE) WITH (fillfactor = 85,'
                               ' autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.05,'
                               ' autovacuum_analyze_scale_factor = 0.02)', part);
                EXECUTE format('ALTER TABLE event_outbox ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part,
                               event_outbox_uuid_at(day), event_outbox_uuid_at(day + interval '24 hours'));
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

-- Retires the partitions whose every id is older than the published rows' window (`window_seconds` before `at`):
-- each is detached and dropped, after the rows retention keeps in it (pending, unroutable within their own
-- window or kept forever, published within the window) move to the default partition unchanged, when there are
-- at most `most_kept` of them; a partition holding more is kept (`kept`), and so is one whose lock did not come
-- within 20 attempts (about 2 s, none waiting more than 100 ms; `busy`, how far past the window the oldest of those
-- is, in seconds). A window of 0 keeps
-- published rows forever: nothing retires. Callable by a role that may delete from the outbox.
CREATE FUNCTION event_outbox_retire_partitions(window_seconds double precision,
                                               unroutable_window_seconds double precision,
                                               at timestamptz DEFAULT now(), most_kept int DEFAULT 1000)
    RETURNS TABLE (dropped int, kept int, busy_seconds double precision)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    unroutable_cutoff timestamptz := CASE WHEN unroutable_window_seconds > 0
        THEN coalesce(at, now()) - unroutable_window_seconds * interval '1 second' END;
    keeps text := '(published_at IS NULL AND unroutable_at IS NULL)'
        || ' OR (unroutable_at IS NOT NULL AND published_at IS NULL AND ($1 IS NULL OR created_at >= $1))'
        || ' OR created_at >= $2';
    columns text := 'id, aggregate_id, event_type, envelope, created_at, published_at, attempts, last_error,'
        || ' claimed_at, next_attempt_at, claim_token, claimed_by, unroutable_at, last_attempt_at, publication,'
        || ' notify_drains, lease_until, traceparent, tracestate, replay_traceparent';
    p record;
    keeping bigint;
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_outbox retires its partitions'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM pg_advisory_xact_lock(1146114644, CAST(CAST(CAST('event_outbox' AS regclass) AS oid) AS int));
    dropped := 0;
    kept := 0;
    busy_seconds := 0;
    IF window_seconds <= 0 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOR p IN SELECT * FROM event_outbox_partitions()
              WHERE upper_bound IS NOT NULL AND upper_bound <= event_outbox_uuid_at(cutoff)
              ORDER BY upper_bound LOOP
        -- Each of the three read through its own index (pending, unroutable, created_at).
        EXECUTE format('SELECT (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE published_at IS NULL'
                       ' AND unroutable_at IS NULL LIMIT %2$s) a)'
                       ' + (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE unroutable_at IS NOT NULL'
                       ' AND published_at IS NULL AND ($1 IS NULL OR created_at >= $1) LIMIT %2$s) b)'
                       ' + (SELECT count(*) FROM (SELECT 1 FROM %1$s WHERE created_at >= $2 LIMIT %2$s) c)',
                       p.partition, most_kept + 1)
            INTO keeping USING unroutable_cutoff, cutoff;
        IF keeping > most_kept THEN
            kept := kept + 1;
            CONTINUE;
        END IF;
        BEGIN
            PERFORM event_outbox_lock_exclusively(20);
            EXECUTE format('ALTER TABLE event_outbox DETACH PARTITION %s', p.partition);
            EXECUTE format('INSERT INTO event_outbox (%1$s) SELECT %1$s FROM %2$s WHERE %3$s', columns, p.partition,
                           keeps)
                USING unroutable_cutoff, cutoff;
            EXECUTE format('DROP TABLE %s', p.partition);
            dropped := dropped + 1;
        EXCEPTION WHEN lock_not_available THEN
            busy_seconds := greatest(busy_seconds, extract(epoch FROM cutoff - event_outbox_uuid_time(p.upper_bound)));
        END;
    END LOOP;
    RETURN NEXT;
END;
$$;

-- Deletes up to `batch` rows of `kind` past their window from the partitions no day covers: 'published' rows
-- whose created_at is older than `window_seconds` before `at`, or 'unroutable' ones. Returns how many.
-- Callable by a role that may delete from the outbox (it could delete them itself, from the partitioned table).
CREATE FUNCTION event_outbox_prune_rows(kind text, window_seconds double precision, batch int,
                                        at timestamptz DEFAULT now())
    RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    condition text := CASE kind
        WHEN 'published' THEN 'created_at < $1 AND published_at IS NOT NULL'
        WHEN 'unroutable' THEN 'created_at < $1 AND published_at IS NULL AND unroutable_at IS NOT NULL' END;
    p record;
    deleted int := 0;
    rows int;
BEGIN
    IF NOT has_table_privilege(session_user, 'event_outbox', 'DELETE') THEN
        RAISE EXCEPTION 'only a role that may delete from event_outbox prunes it'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF condition IS NULL THEN
        RAISE EXCEPTION 'kind is published or unroutable, not %', kind USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR p IN SELECT partition FROM event_outbox_partitions() WHERE NOT by_day ORDER BY upper_bound NULLS LAST LOOP
        EXIT WHEN deleted >= batch;
        -- The condition again on the rows deleted: one re-staged since it was picked stays (docs/decisions/0033).
        EXECUTE format('DELETE FROM %1$s WHERE id IN (SELECT id FROM %1$s WHERE %2$s ORDER BY created_at LIMIT $2)'
                       ' AND %2$s', p.partition, condition)
            USING cutoff, batch - deleted;
        GET DIAGNOSTICS rows = ROW_COUNT;
        deleted := deleted + rows;
    END LOOP;
    RETURN deleted;
END;
$$;

-- How far past its window, in seconds, the oldest row of `kind` that event_outbox_prune_rows deletes is: 0 when
-- none is left. (A day partition past the window that could not be retired says so itself.)
CREATE FUNCTION event_outbox_overdue(kind text, window_seconds double precision, at timestamptz DEFAULT now())
    RETURNS double precision LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    cutoff timestamptz := coalesce(at, now()) - window_seconds * interval '1 second';
    condition text := CASE kind
        WHEN 'published' THEN 'created_at < $1 AND published_at IS NOT NULL'
        WHEN 'unroutable' THEN 'created_at < $1 AND published_at IS NULL AND unroutable_at IS NOT NULL' END;
    p record;
    oldest timestamptz;
    behind double precision := 0;
BEGIN
    IF condition IS NULL THEN
        RAISE EXCEPTION 'kind is published or unroutable, not %', kind USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR p IN SELECT partition FROM event_outbox_partitions() WHERE NOT by_day LOOP
        EXECUTE format('SELECT created_at FROM %s WHERE %s ORDER BY created_at LIMIT 1', p.partition, condition)
            INTO oldest USING cutoff;
        IF oldest IS NOT NULL THEN
            behind := greatest(behind, extract(epoch FROM cutoff - oldest));
        END IF;
    END LOOP;
    RETURN behind;
END;
$$;

DO $$
DECLARE
    bound uuid;
    definitions text[];
    definition text;
    granted record;
BEGIN
    SELECT CAST(substring(pg_get_constraintdef(oid) FROM '''([0-9a-f-]{36})''') AS uuid) INTO bound
      FROM pg_constraint
     WHERE conname = 'event_outbox_below_partitions' AND conrelid = CAST('event_outbox' AS regclass);
    -- The indexes as they are now, to be made again on the partitioned table under the same names.
    SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO definitions
      FROM pg_index i
     WHERE i.indrelid = CAST('event_outbox' AS regclass) AND NOT i.indisprimary;

    PERFORM event_outbox_lock_exclusively(3000);
    ALTER TABLE event_outbox RENAME TO event_outbox_legacy;
    ALTER INDEX event_outbox_pkey RENAME TO event_outbox_legacy_pkey;
    FOR definition IN SELECT c.relname
                        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                       WHERE i.indrelid = CAST('event_outbox_legacy' AS regclass) AND NOT i.indisprimary LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', definition,
                       'event_outbox_legacy_' || substr(definition, length('event_outbox_') + 1));
    END LOOP;

    CREATE TABLE event_outbox (LIKE event_outbox_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS
                               INCLUDING GENERATED INCLUDING STORAGE)
        PARTITION BY RANGE (id);
    ALTER TABLE event_outbox DROP CONSTRAINT event_outbox_below_partitions;
    ALTER TABLE event_outbox ADD CONSTRAINT event_outbox_pkey PRIMARY KEY (id);
    FOREACH definition IN ARRAY coalesce(definitions, ARRAY[]::text[]) LOOP
        EXECUTE definition;
    END LOOP;
    -- A row trigger on the partitioned table is every partition's; the legacy table's own go.
    DROP TRIGGER event_outbox_staged ON event_outbox_legacy;
    DROP TRIGGER event_outbox_restaged ON event_outbox_legacy;
    CREATE TRIGGER event_outbox_staged AFTER INSERT ON event_outbox
        FOR EACH ROW WHEN (NEW.notify_drains) EXECUTE FUNCTION event_outbox_notify();
    CREATE TRIGGER event_outbox_restaged AFTER UPDATE OF publication ON event_outbox
        FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify();
    -- Checked by V15's bound and its indexes matched by definition: attaching it scans nothing.
    EXECUTE format('ALTER TABLE event_outbox ATTACH PARTITION event_outbox_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
                   bound);
    CREATE TABLE event_outbox_default PARTITION OF event_outbox DEFAULT WITH (fillfactor = 85,
        autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.05,
        autovacuum_analyze_scale_factor = 0.02);
    -- Whoever could use the table as it was can use the partitioned one (docs/grants/postgresql.sql).
    FOR granted IN SELECT a.grantee, a.privilege_type
                     FROM pg_class c, aclexplode(c.relacl) a
                    WHERE c.oid = CAST('event_outbox_legacy' AS regclass) AND a.grantee <> c.relowner LOOP
        EXECUTE format('GRANT %s ON event_outbox TO %s', granted.privilege_type,
                       CASE WHEN granted.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(granted.grantee)) END);
    END LOOP;
END;
$$;

SELECT event_outbox_make_partitions();
