-- The outbox becomes a table partitioned by its ids' day (docs/decisions/0093-outbox-partitioned-by-day.md),
-- online, in two migrations. This one: the functions every table partitioned by a UUIDv7 key uses, and a bound
-- on the ids the table as it is may hold, a week ahead: checked for new rows from now on, and for the rows
-- already there by V16, which then turns the table into the partition of every id below the bound without
-- scanning it under a lock. Every function runs with this schema's search path.

-- The smallest UUIDv7 (RFC 9562) of the millisecond `at` falls in: every id made at or after `at` sorts at or
-- above it, every id made before it below.
CREATE FUNCTION durability_uuid7_at(at timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
    SELECT CAST(lpad(to_hex(CAST(floor(extract(epoch FROM at) * 1000) AS bigint)), 12, '0')
                || '70008000000000000000' AS uuid)
$$;

-- The millisecond a UUIDv7 was made in (its first 48 bits).
CREATE FUNCTION durability_uuid7_time(id uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
    SELECT to_timestamp(CAST(CAST(('x' || substr(replace(CAST(id AS text), '-', ''), 1, 12)) AS bit(48)) AS bigint)
                        / 1000.0)
$$;

-- Takes a table's ACCESS EXCLUSIVE lock for the rest of the transaction in attempts, with a pause between them: a
-- request for the lock makes every later statement on the table wait behind it, so a transaction writing to it waits
-- at most one attempt, never the length of another transaction that holds the table. The first attempts wait 20 ms;
-- later ones longer, up to 1 s, so that a table always held by some transaction still gets its turn.
CREATE FUNCTION durability_lock_exclusively(tbl text, attempts int) RETURNS void
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    previous text := current_setting('lock_timeout');
BEGIN
    FOR attempt IN 1..attempts LOOP
        PERFORM set_config('lock_timeout', least(1000, round(20 * power(1.5, attempt / 5))) || 'ms', true);
        BEGIN
            EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', tbl);
            PERFORM set_config('lock_timeout', previous, true);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.02 + random() * 0.08);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', previous, true);
    RAISE EXCEPTION '% stayed in use through % attempts to lock it', tbl, attempts
        USING ERRCODE = 'lock_not_available';
END;
$$;

-- Bounds `tbl` below the UUIDv7 of the start of the UTC day a week from now on `key`: a constraint checked for new
-- rows from now on (NOT VALID), under the table's lock taken in attempts, for the next migration to validate while
-- writes go on and then to make the table the partition below the bound. A key at or above the bound is no UUIDv7 of
-- today (a random id, a row inserted by SQL): a table holding one cannot become that partition, and the migration
-- stops saying how many there are (`noun`) and how to let them go (`remedy`, a format string given the bound). Only
-- for migrations.
CREATE FUNCTION durability_bound_below_partitions(tbl text, key text, noun text, remedy text) RETURNS void
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    bound uuid := durability_uuid7_at(
        CAST(date_trunc('day', now() AT TIME ZONE 'UTC') + interval '7 days' AS timestamp) AT TIME ZONE 'UTC');
    above bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM %I WHERE %I >= $1', tbl, key) INTO above USING bound;
    IF above > 0 THEN
        RAISE EXCEPTION '% holds % rows whose % are not UUIDv7 (they sort at or above %): the table cannot be '
            'partitioned by their day while it holds them. %, and migrate again (docs/schema.md, "Partitions")',
            tbl, above, noun, bound, format(remedy, bound)
            USING ERRCODE = 'check_violation';
    END IF;
    PERFORM durability_lock_exclusively(tbl, 3000);
    -- Again under the lock: a row written meanwhile.
    EXECUTE format('SELECT count(*) FROM %I WHERE %I >= $1', tbl, key) INTO above USING bound;
    IF above > 0 THEN
        RAISE EXCEPTION '% holds % rows whose % are not UUIDv7, written while this migration ran: migrate again '
            'once they are gone (docs/schema.md, "Partitions")', tbl, above, noun
            USING ERRCODE = 'check_violation';
    END IF;
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I < %L) NOT VALID', tbl, tbl || '_below_partitions',
                   key, bound);
END;
$$;
REVOKE EXECUTE ON FUNCTION durability_bound_below_partitions(text, text, text, text) FROM PUBLIC;

-- An id at or above the bound: a random UUID staged through OutboxStager.stage(EventEnvelope), or a row inserted by
-- SQL (EventEnvelope.builder makes UUIDv7 ids).
SELECT durability_bound_below_partitions('event_outbox', 'id', 'ids',
    'Delete the published ones (DELETE FROM event_outbox WHERE id >= ''%s'' AND published_at IS NOT NULL), let the '
    'drain publish the rest');
