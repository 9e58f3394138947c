-- A claim records until when it holds its rows (docs/decisions/0083-lease-on-the-row.md). Before, a taker
-- compared the claim's age with its own lease: a server configured with a shorter lease took over rows
-- another server still held, and published them twice. A catalog change (nullable, no default): no rewrite.
ALTER TABLE event_outbox ADD COLUMN lease_until timestamptz;
-- Rows claimed right now by servers of the previous release: held for the default lease from their claim
-- (such servers go on claiming without lease_until; the claim reads those rows by their claim's age).
UPDATE event_outbox SET lease_until = claimed_at + interval '90 seconds'
 WHERE claim_token IS NOT NULL AND published_at IS NULL AND unroutable_at IS NULL;
