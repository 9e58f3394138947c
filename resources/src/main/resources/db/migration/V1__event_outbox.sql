-- D1 transactional outbox (SPEC §4). Released migrations never change: add a new version instead.
CREATE TABLE event_outbox (
    id              uuid        PRIMARY KEY,
    aggregate_id    uuid        NULL,
    event_type      text        NOT NULL,
    envelope        jsonb       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    published_at    timestamptz NULL,
    attempts        int         NOT NULL DEFAULT 0,
    last_error      text        NULL,
    claimed_at      timestamptz NULL,
    next_attempt_at timestamptz NULL,
    -- The claim a worker holds: every stamp and release is fenced on it, so a worker that stalled
    -- past its lease can never touch a newer claim.
    claim_token     uuid        NULL,
    -- Which server instance holds (or last held) the claim: for operators reading a stuck row.
    claimed_by      text        NULL,
    CONSTRAINT event_outbox_published_after_created
        CHECK (published_at IS NULL OR published_at >= created_at),
    CONSTRAINT event_outbox_attempts_not_negative CHECK (attempts >= 0),
    CONSTRAINT event_outbox_event_type_dotted_lower_case
        CHECK (event_type ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$' AND length(event_type) <= 255),
    CONSTRAINT event_outbox_envelope_is_object CHECK (jsonb_typeof(envelope) = 'object'),
    -- The row's columns and the envelope it publishes describe the same event.
    CONSTRAINT event_outbox_envelope_matches_row
        CHECK (envelope ->> 'id' = id::text AND envelope ->> 'event_type' = event_type)
);

-- The drain's claim scans pending rows oldest first; published rows (the vast majority) stay out of it.
CREATE INDEX event_outbox_pending_idx ON event_outbox (created_at, id) WHERE published_at IS NULL;

-- Replay selects a created_at window (optionally one event type); retention prunes by created_at.
CREATE INDEX event_outbox_created_at_idx ON event_outbox (created_at, event_type);
