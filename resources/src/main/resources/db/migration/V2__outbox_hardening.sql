-- Outbox hardening. Released migrations never change: add a new version instead.

-- An event the broker accepted but routed to no queue (returned as unroutable): neither pending nor
-- published. It keeps this state, out of the drain's claims, until re-staged (replay) once a queue is
-- bound; see docs/decisions/0012-unroutable-rows-kept-apart.md.
ALTER TABLE event_outbox ADD COLUMN unroutable_at timestamptz NULL;
ALTER TABLE event_outbox ADD CONSTRAINT event_outbox_published_or_unroutable
    CHECK (published_at IS NULL OR unroutable_at IS NULL);

-- When the last failed attempt was stamped: with next_attempt_at it shows the backoff an operator
-- (or a test) can check, after the claim itself was released.
ALTER TABLE event_outbox ADD COLUMN last_attempt_at timestamptz NULL;

-- The size of the envelope as the drain publishes it (PostgreSQL's jsonb text), so a claim can be
-- bounded in bytes without reading the envelopes it leaves behind.
ALTER TABLE event_outbox ADD COLUMN envelope_bytes int
    GENERATED ALWAYS AS (octet_length(CAST(envelope AS text))) STORED;

-- The drain's claim scans only pending rows: not published, not unroutable.
DROP INDEX event_outbox_pending_idx;
CREATE INDEX event_outbox_pending_idx ON event_outbox (created_at, id)
    WHERE published_at IS NULL AND unroutable_at IS NULL;

-- The status gauges count these subsets on every refresh; each has its own small index, so a large
-- healthy backlog is never scanned to find the few failing or unroutable rows.
CREATE INDEX event_outbox_failing_idx ON event_outbox (created_at)
    WHERE published_at IS NULL AND unroutable_at IS NULL AND attempts > 0;
CREATE INDEX event_outbox_unroutable_idx ON event_outbox (created_at, event_type)
    WHERE unroutable_at IS NOT NULL;
