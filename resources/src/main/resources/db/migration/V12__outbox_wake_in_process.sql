-- Staging through OutboxStager no longer notifies (docs/decisions/0082-in-process-wake-up.md): a NOTIFY
-- takes PostgreSQL's cluster-wide notify lock at commit and holds it through the commit's WAL flush, so
-- concurrent staging transactions committed one at a time. OutboxStager writes notify_drains = false and
-- wakes its own server's drain after the commit; rows inserted by SQL keep the default and notify the
-- drains' LISTEN connections as before. Row level with a WHEN condition: a row that does not notify costs
-- no trigger call.
-- The channel is named after the table's schema, no longer the session's current_schema(): a session whose
-- search_path does not start with the library's schema (a tool, a DBA, the replay of another role) named
-- the wrong channel and woke nobody.
-- Online-safe: a column with a constant default is a catalog change (no rewrite), and the trigger swap
-- holds the table's lock only for the two catalog changes.
ALTER TABLE event_outbox ADD COLUMN notify_drains boolean NOT NULL DEFAULT true;
DROP TRIGGER event_outbox_staged ON event_outbox;
CREATE TRIGGER event_outbox_staged AFTER INSERT ON event_outbox
    FOR EACH ROW WHEN (NEW.notify_drains) EXECUTE FUNCTION event_outbox_notify();
CREATE OR REPLACE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('durability_outbox_' || TG_TABLE_SCHEMA, '');
    RETURN NULL;
END;
$$;
