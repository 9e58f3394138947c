-- The claim rewrites every row it takes (its lease) and changes no column an index covers, nor one an index's
-- predicate reads, so the row's new version may stay on its page without new index entries (a HOT update) if the page
-- has room for it. At fillfactor 85 a page of outbox rows (about 550 bytes each) has room for one or two of its dozen
-- rows' new versions: 86 % of claims wrote four index entries a row. Half of each page is kept free from now on: room
-- for a new version of every row of that size, each about 60 bytes longer than the row was
-- (docs/decisions/0097-outbox-claims-stay-on-their-page.md).
-- Applies to pages written after it. SET (fillfactor) takes a lock that lets staging, claims and stamps go on; the
-- day partitions made later take their storage settings from the default partition.
DO $$
DECLARE
    part regclass;
BEGIN
    -- The lock under which a server makes day partitions (durability_make_day_partitions, V16): one made meanwhile
    -- would copy the default partition's setting from before this migration and be missed by the loop below.
    PERFORM pg_advisory_xact_lock(1146114644, CAST(CAST(CAST('event_outbox' AS regclass) AS oid) AS int));
    FOR part IN SELECT CAST(inhrelid AS regclass) FROM pg_inherits WHERE inhparent = CAST('event_outbox' AS regclass)
    LOOP
        EXECUTE format('ALTER TABLE %s SET (fillfactor = 50)', part);
    END LOOP;
END;
$$;
