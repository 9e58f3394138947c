-- Replay, dead-letter triage and the admin audit (docs/admin.md). Released migrations never change: add a
-- new version instead.

-- Every admin action that reached the application, accepted or refused, with who asked: one row per call,
-- never updated or deleted (retention leaves it alone: the trail outlives what it is about).
CREATE TABLE admin_audit (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    principal   text        NOT NULL CHECK (length(principal) BETWEEN 1 AND 512),
    -- how the principal signed in: 'form' (admin pages) or 'bearer' (admin REST API)
    channel     text        NOT NULL CHECK (channel IN ('form', 'bearer')),
    action      text        NOT NULL CHECK (action IN ('replay', 'replay-preview', 'redrive', 'known-bad')),
    outcome     text        NOT NULL CHECK (outcome IN ('done', 'refused')),
    -- what was asked and what came of it: window, scope, counts, dead letter id, or the refusal's message
    details     jsonb       NOT NULL CHECK (jsonb_typeof(details) = 'object')
);
CREATE INDEX admin_audit_at_idx ON admin_audit (at);

CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'admin_audit is append-only: rows are never updated or deleted' USING ERRCODE = 'P0001';
END;
$$;
CREATE TRIGGER admin_audit_no_update BEFORE UPDATE OR DELETE ON admin_audit
    FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only();
CREATE TRIGGER admin_audit_no_truncate BEFORE TRUNCATE ON admin_audit
    FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_append_only();

-- What operators decided about a dead letter: a redrive (its envelope re-staged) or a known-bad verdict.
-- The audit row itself is never rewritten; its triage is a list of these, newest last. Deleted with the
-- dead letter it is about.
CREATE TABLE dead_letter_triage (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    dead_letter_id bigint      NOT NULL REFERENCES dead_letter_audit (id) ON DELETE CASCADE,
    verdict        text        NOT NULL CHECK (verdict IN ('redriven', 'known-bad')),
    note           text        NULL CHECK (note IS NULL OR length(note) <= 2000),
    principal      text        NOT NULL CHECK (length(principal) BETWEEN 1 AND 512),
    at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dead_letter_triage_letter_idx ON dead_letter_triage (dead_letter_id, at);

-- A replay or a redrive re-stages rows with an UPDATE that always bumps publication: wake the drains for
-- it as the INSERT trigger (V4) does for staging, on commit only.
CREATE TRIGGER event_outbox_restaged AFTER UPDATE OF publication ON event_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify();
