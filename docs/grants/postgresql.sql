-- The privileges a Durability server's PostgreSQL role needs when its schema is migrated by another role
-- (durability.schema.migrate=false): exactly these, nothing outside the schema. Run as the schema's owner,
-- after the release's migrations (docs/schema.md), with the schema and the servers' role as variables:
--
--   psql -v ON_ERROR_STOP=1 -v schema=durability -v runtime=orders_app -f postgresql.sql
--
-- A server checks each of these at start and refuses to start naming the ones its role lacks
-- (dev.durability.schema.control.RuntimeGrants holds the same list; a unit test compares the two).
-- Rerunning it is harmless.

GRANT USAGE ON SCHEMA :"schema" TO :"runtime";

-- the applied migrations, which a validate-only start and the readiness check read
GRANT SELECT ON :"schema".durability_schema_history TO :"runtime";

-- staged, claimed, stamped published, re-staged by replays, pruned
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".event_outbox TO :"runtime";

-- consumers' dedup records: inserted, marked processed or dead-lettered, pruned
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".event_inbox TO :"runtime";

-- dead letters are append-only (a trigger refuses updates) and pruned; a triage verdict locks its letter
-- FOR KEY SHARE, which PostgreSQL allows only with UPDATE on some column: the key, which never changes
GRANT SELECT, INSERT, DELETE ON :"schema".dead_letter_audit TO :"runtime";
GRANT UPDATE (id) ON :"schema".dead_letter_audit TO :"runtime";
GRANT SELECT, INSERT ON :"schema".dead_letter_triage TO :"runtime";

-- the admin actions' audit, append-only
GRANT SELECT, INSERT ON :"schema".admin_audit TO :"runtime";

-- replay jobs: started, worked slice by slice, cancelled; kept
GRANT SELECT, INSERT, UPDATE ON :"schema".replay_job TO :"runtime";

-- the idempotency filter's records: claimed, finalized, renewed, pruned
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".idempotency_responses TO :"runtime";
-- numbers each claim of a key, fencing a lapsed claim's late writes
GRANT USAGE ON SEQUENCE :"schema".idempotency_claim_generation TO :"runtime";
