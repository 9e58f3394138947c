-- The inbox (idempotent consumers) and the dead-letter audit. Released migrations never change: add a
-- new version instead.

-- How often this row was published afresh: 0 when staged, incremented by a replay or a redrive (never by
-- the drain's own retries). Sent as the x-durability-publication header, it lets a consumer tell a replay of
-- an envelope it gave up on (a new generation) from another copy of the same publication.
ALTER TABLE event_outbox ADD COLUMN publication int NOT NULL DEFAULT 0;

-- One row per (consumer queue, envelope): one envelope fanned out to two consumers of one database is
-- two rows, never a false duplicate. processed_at is stamped in the transaction that ran the handler;
-- attempts and last_error are written in a transaction of their own, so a rolled-back handler still
-- counts. dead_lettered_at marks an envelope this consumer gave up on; received_at is the occurrence
-- of that give-up (docs/decisions/0025-inbox-retries-and-occurrences.md).
CREATE TABLE event_inbox (
    consumer_queue   text         NOT NULL CHECK (length(consumer_queue) BETWEEN 1 AND 255),
    envelope_id      uuid         NOT NULL,
    source_service   text         NOT NULL,
    event_type       text         NOT NULL,
    received_at      timestamptz  NOT NULL DEFAULT now(),
    processed_at     timestamptz  NULL,
    attempts         int          NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error       text         NULL,
    dead_lettered_at timestamptz  NULL,
    -- the publication (x-durability-publication) that was dead-lettered: another one is a replay
    dead_lettered_publication int NULL,
    PRIMARY KEY (consumer_queue, envelope_id),
    CONSTRAINT event_inbox_processed_or_dead CHECK (processed_at IS NULL OR dead_lettered_at IS NULL)
);
-- Retention deletes by age; operators look for what is failing.
CREATE INDEX event_inbox_received_idx ON event_inbox (received_at);
CREATE INDEX event_inbox_unprocessed_idx ON event_inbox (consumer_queue, received_at) WHERE processed_at IS NULL;

-- Append-only: one row per dead-letter occurrence (docs/decisions/0026-dead-letter-occurrences.md).
-- envelope holds the message when it is JSON, raw_bytes when it is not (or when jsonb refuses it).
CREATE TABLE dead_letter_audit (
    id                bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    envelope_id       uuid         NULL,
    original_queue    text         NULL,
    source_service    text         NULL,
    event_type        text         NULL,
    reason            text         NOT NULL,
    path              text         NOT NULL CHECK (path IN ('broker', 'application', 'unknown')),
    envelope          jsonb        NULL,
    raw_bytes         bytea        NULL,
    x_death           jsonb        NULL,
    occurrence_token  text         NULL CHECK (occurrence_token IS NULL OR octet_length(occurrence_token) <= 256),
    occurred_at       timestamptz  NULL,
    dlq_received_at   timestamptz  NOT NULL DEFAULT now(),
    quarantined       boolean      NOT NULL DEFAULT false,
    CONSTRAINT dead_letter_audit_has_content CHECK (envelope IS NOT NULL OR raw_bytes IS NOT NULL),
    CONSTRAINT dead_letter_audit_quarantine_tokenless CHECK (NOT quarantined OR occurrence_token IS NULL)
);
-- One row per occurrence: a second delivery of the same dead letter finds its token taken.
CREATE UNIQUE INDEX dead_letter_audit_token_key ON dead_letter_audit (occurrence_token)
    WHERE occurrence_token IS NOT NULL;
-- The threshold counts an event type's rows inside the window, keyed on when the dead letter happened
-- (never later than when it was received, so a forged future time cannot hide it).
CREATE INDEX dead_letter_audit_window_idx ON dead_letter_audit
    (event_type, (LEAST(COALESCE(occurred_at, dlq_received_at), dlq_received_at)));
CREATE INDEX dead_letter_audit_received_idx ON dead_letter_audit (dlq_received_at);

-- Rows are never rewritten: triage notes live elsewhere. Retention may still delete old rows.
CREATE FUNCTION dead_letter_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'dead_letter_audit is append-only: rows are never updated' USING ERRCODE = 'P0001';
END;
$$;
CREATE TRIGGER dead_letter_audit_no_update BEFORE UPDATE ON dead_letter_audit
    FOR EACH ROW EXECUTE FUNCTION dead_letter_audit_append_only();
