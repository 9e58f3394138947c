-- The inbox becomes a table partitioned by its envelope ids' day, as the outbox did in V15 and V16
-- (docs/decisions/0094-inbox-partitioned-by-day.md), online, in two migrations. This one: a bound on the envelope
-- ids the table as it is may hold, a week ahead, checked for new rows from now on, and for the rows already there by
-- V18, which then turns the table into the partition of every envelope id below the bound without scanning it under
-- a lock. The dedup key (consumer_queue, envelope_id) holds the partition key, so it stays unique across partitions:
-- a copy of an envelope delivered days later lands in the partition of the first, and finds its row.

-- An envelope id at or above the bound: an envelope a producer made with a random id.
SELECT durability_bound_below_partitions('event_inbox', 'envelope_id', 'envelope ids',
    'Delete them once their envelopes need no deduplication any more (DELETE FROM event_inbox WHERE envelope_id >= '
    '''%s''; a copy of one delivered later is handled again)');
