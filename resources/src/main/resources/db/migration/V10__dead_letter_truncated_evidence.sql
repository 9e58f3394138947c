-- A dead letter too large to forward whole (its wrapper would exceed the broker's message size limit) is
-- recorded with truncated evidence: the first bytes of the original, its size and digest in the reason
-- (docs/decisions/0058-oversized-dead-letters.md). A constant default is kept in the catalogue: added
-- without a table rewrite, online-safe on a large audit table.
ALTER TABLE dead_letter_audit ADD COLUMN evidence_truncated boolean NOT NULL DEFAULT false;
