-- A claim walks only rows nobody holds (docs/decisions/0088-claim-skips-leased-rows.md). Before, the fresh and
-- retry indexes held every unstamped row, so each claim stepped over the rows every server had claimed and not
-- yet stamped, a pipelined batch or two per server: two servers drained slower than one. Claimed rows now leave
-- those indexes; a claim whose lease ran out is found through an index of claimed rows ordered by their lease
-- (a claim recorded by the release before leases, without lease_until, sorts at its end).
--
-- Online: every statement is CONCURRENTLY, so Flyway runs this file outside a transaction and staging, claims and
-- stamps go on while it runs (docs/schema.md, "Online migrations"). Should it fail halfway, an index it left
-- INVALID is dropped by running the file again after `flyway repair`: each index is dropped if present first.
DROP INDEX CONCURRENTLY IF EXISTS event_outbox_unclaimed_fresh_idx;
CREATE INDEX CONCURRENTLY event_outbox_unclaimed_fresh_idx ON event_outbox (created_at, id)
    WHERE published_at IS NULL AND unroutable_at IS NULL AND next_attempt_at IS NULL AND claimed_at IS NULL;
DROP INDEX CONCURRENTLY IF EXISTS event_outbox_unclaimed_retry_idx;
CREATE INDEX CONCURRENTLY event_outbox_unclaimed_retry_idx ON event_outbox (next_attempt_at, id)
    WHERE published_at IS NULL AND unroutable_at IS NULL AND next_attempt_at IS NOT NULL AND claimed_at IS NULL;
DROP INDEX CONCURRENTLY IF EXISTS event_outbox_leased_idx;
CREATE INDEX CONCURRENTLY event_outbox_leased_idx ON event_outbox (lease_until, id)
    WHERE published_at IS NULL AND unroutable_at IS NULL AND claimed_at IS NOT NULL;
-- The indexes they replace. A server of the release before, still running during a rolling upgrade, claims
-- through event_outbox_pending_idx meanwhile: correct, and slower until it is upgraded.
DROP INDEX CONCURRENTLY IF EXISTS event_outbox_fresh_idx;
DROP INDEX CONCURRENTLY IF EXISTS event_outbox_retry_idx;
