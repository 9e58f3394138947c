-- The idempotency filter's records (docs/idempotency.md, docs/decisions/0030-idempotency-records.md).
-- One row per cache key: sha256 of method, path, raw query, subject and Idempotency-Key, so neither the
-- key nor the caller's name is stored. Every instance on this database shares the rows, so replicas
-- behind a load balancer answer a retry alike.
--
-- processing -> succeeded | failed. Every claim (the first, or a re-claim of a failed row or of an expired
-- claim) takes a new claim_generation, and a finalize changes the row only while it still holds the
-- generation it claimed, so a handler that outlived its claim can never overwrite a newer one. The
-- generations come from one sequence, not a per-row counter: a row deleted by retention and inserted
-- again never hands out a generation an older, still running handler holds.
CREATE SEQUENCE idempotency_claim_generation;

CREATE TABLE idempotency_responses (
    cache_key         bytea       PRIMARY KEY CHECK (length(cache_key) = 32),
    body_fingerprint  bytea       NOT NULL CHECK (length(body_fingerprint) = 32),
    state             text        NOT NULL CHECK (state IN ('processing', 'succeeded', 'failed')),
    claim_generation  bigint      NOT NULL CHECK (claim_generation >= 1),
    method            text        NOT NULL,
    path              text        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz NOT NULL,
    claim_expires_at  timestamptz NOT NULL,
    expires_at        timestamptz NOT NULL,
    finalized_at      timestamptz,
    response_status   integer     CHECK (response_status BETWEEN 100 AND 599),
    -- [[name, value], ...] of the headers a replay may carry; never cookies or credentials.
    response_headers  jsonb,
    response_body     bytea,
    -- The handler's body was over the cap, or could not be sent whole: a replay serves a marked response
    -- without a body.
    body_omitted      boolean     NOT NULL DEFAULT false,
    CONSTRAINT idempotency_finalized CHECK (
        (state = 'processing' AND finalized_at IS NULL AND response_status IS NULL)
        OR (state = 'failed' AND finalized_at IS NOT NULL AND response_body IS NULL)
        OR (state = 'succeeded' AND finalized_at IS NOT NULL AND response_status BETWEEN 200 AND 299
            AND response_headers IS NOT NULL AND (response_body IS NULL) = body_omitted))
);

-- Retention deletes rows whose expires_at has passed.
CREATE INDEX idempotency_responses_expires_idx ON idempotency_responses (expires_at);
