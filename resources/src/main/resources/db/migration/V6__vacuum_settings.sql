-- The library's hot tables are vacuumed and analyzed sooner than PostgreSQL's defaults (after 20% of a
-- table changed): every staged event is inserted, claimed, stamped and, 30 days later, deleted, so a
-- busy outbox would otherwise carry millions of dead rows between vacuums, and the claim's index scans
-- would walk them (docs/decisions/0034-vacuum-settings.md). Room left on each page (fillfactor) lets
-- the claim's and the finalize's updates stay on the row's page (HOT) when no indexed column changes.
ALTER TABLE event_outbox SET (
    fillfactor = 85,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.02);

ALTER TABLE event_inbox SET (
    autovacuum_vacuum_scale_factor = 0.05,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.05);

ALTER TABLE idempotency_responses SET (
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.05);
