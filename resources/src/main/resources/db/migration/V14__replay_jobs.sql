-- A replay is a job restaged in slices (docs/admin.md, docs/decisions/0084-replay-as-a-job.md): each slice a
-- short transaction that restages up to durability.replay.slice-size rows of the window and records its
-- progress on this row, so a crash loses at most the slice it was in and any server resumes after the
-- position. Released migrations never change: add a new version instead.
CREATE TABLE replay_job (
    id                 uuid             PRIMARY KEY,
    -- the window [window_from, window_to) on event_outbox.created_at, the event type (null: all) and scope
    window_from        timestamptz      NOT NULL,
    window_to          timestamptz      NOT NULL,
    event_type         text             NULL,
    scope              text             NOT NULL CHECK (scope IN ('all', 'unroutable')),
    state              text             NOT NULL DEFAULT 'running'
                                        CHECK (state IN ('running', 'done', 'cancelled', 'failed')),
    -- who started it and how they signed in, as admin_audit has them
    principal          text             NOT NULL CHECK (length(principal) BETWEEN 1 AND 512),
    channel            text             NOT NULL CHECK (channel IN ('form', 'bearer')),
    -- rows in the window and scope when the job started (the preview's count)
    matched            bigint           NOT NULL CHECK (matched >= 0),
    -- so far: rows restaged, pending rows left alone, slices committed, the longest slice's transaction
    restaged           bigint           NOT NULL DEFAULT 0 CHECK (restaged >= 0),
    pending            bigint           NOT NULL DEFAULT 0 CHECK (pending >= 0),
    slices             int              NOT NULL DEFAULT 0,
    longest_slice_ms   double precision NOT NULL DEFAULT 0,
    -- the resume position: the last (created_at, id) of the window a committed slice looked at
    after_created_at   timestamptz      NULL,
    after_id           uuid             NULL,
    -- the replay span's context, which every restaged row's next publish span links to
    replay_traceparent text             NULL,
    -- the server working the job and until when it holds it (its lease, renewed by every slice)
    worker             text             NULL,
    lease_until        timestamptz      NULL,
    -- slices that failed in a row, and the last failure
    failed_slices      int              NOT NULL DEFAULT 0,
    last_error         text             NULL CHECK (last_error IS NULL OR length(last_error) <= 2000),
    -- set by a cancel: the job stops before its next slice
    cancelled_by       text             NULL CHECK (cancelled_by IS NULL OR length(cancelled_by) BETWEEN 1 AND 512),
    started_at         timestamptz      NOT NULL DEFAULT now(),
    ended_at           timestamptz      NULL,
    CHECK (window_from < window_to),
    CHECK ((after_created_at IS NULL) = (after_id IS NULL)),
    CHECK ((state = 'running') = (ended_at IS NULL)),
    -- one running job per overlapping window: the service refuses a second one with 409 naming the first; this
    -- is the backstop against two servers starting both at the same instant
    CONSTRAINT replay_job_one_per_window EXCLUDE USING gist (tstzrange(window_from, window_to) WITH &&)
        WHERE (state = 'running')
);
CREATE INDEX replay_job_started_idx ON replay_job (started_at);

-- The audit records a job's start and its end, and a cancel request.
ALTER TABLE admin_audit
    DROP CONSTRAINT admin_audit_action_check,
    ADD CONSTRAINT admin_audit_action_check
        CHECK (action IN ('replay', 'replay-preview', 'replay-cancel', 'redrive', 'known-bad')),
    DROP CONSTRAINT admin_audit_outcome_check,
    ADD CONSTRAINT admin_audit_outcome_check
        CHECK (outcome IN ('done', 'refused', 'started', 'cancelled', 'failed'));
