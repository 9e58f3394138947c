-- The inbox becomes a table partitioned by its envelope ids' day, as the outbox did in V15 and V16
-- (docs/decisions/0094-inbox-partitioned-by-day.md), online, in two migrations. This one: a bound on the envelope
-- ids the table as it is may hold, a week ahead, checked for new rows from now on, and for the rows already there by
-- V18, which then turns the table into the partition of every envelope id below the bound without scanning it under
-- a lock. The dedup key (consumer_queue, envelope_id) holds the partition key, so it stays unique across partitions:
-- a copy of an envelope delivered days later lands in the partition of the first, and finds its row.

DO $$
DECLARE
    bound uuid := durability_uuid7_at(
        CAST(date_trunc('day', now() AT TIME ZONE 'UTC') + interval '7 days' AS timestamp) AT TIME ZONE 'UTC');
    above bigint;
BEGIN
    -- An envelope id at or above the bound is no UUIDv7 of today: an envelope a producer made with a random id.
    -- The table as it is cannot become the partition below the bound while it holds one.
    SELECT count(*) INTO above FROM event_inbox WHERE envelope_id >= bound;
    IF above > 0 THEN
        RAISE EXCEPTION 'event_inbox holds % rows whose envelope ids are not UUIDv7 (they sort at or above %): the '
            'table cannot be partitioned by its ids'' day while it holds them. Delete them once their envelopes '
            'need no deduplication any more (DELETE FROM event_inbox WHERE envelope_id >= ''%''; a copy of one '
            'delivered later is handled again), and migrate again (docs/schema.md, "Partitions")', above, bound, bound
            USING ERRCODE = 'check_violation';
    END IF;
    PERFORM durability_lock_exclusively('event_inbox', 3000);
    -- Again under the lock: a row inserted meanwhile.
    SELECT count(*) INTO above FROM event_inbox WHERE envelope_id >= bound;
    IF above > 0 THEN
        RAISE EXCEPTION 'event_inbox holds % rows whose envelope ids are not UUIDv7, received while this migration '
            'ran: migrate again once they are deleted (docs/schema.md, "Partitions")', above
            USING ERRCODE = 'check_violation';
    END IF;
    EXECUTE format('ALTER TABLE event_inbox ADD CONSTRAINT event_inbox_below_partitions'
                   ' CHECK (envelope_id < %L) NOT VALID', bound);
END;
$$;
