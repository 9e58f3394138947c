-- A divergent claim of an occurrence token is recorded quarantined and names the audit row whose token it
-- claimed: it is evidence of a divergent copy, not a new failure, so the per-event-type threshold does not
-- count it (docs/decisions/0057-divergent-dead-letters-not-counted.md). A nullable column without a default:
-- added without a table rewrite, online-safe on a large audit table.
ALTER TABLE dead_letter_audit ADD COLUMN divergent_of bigint NULL;
