-- Wakes the drains when events are staged (docs/decisions/0029-listen-notify-wake-up.md). PostgreSQL
-- delivers a NOTIFY only when the staging transaction commits, never for one that rolls back, and folds the
-- identical notifications of one transaction into one. The channel is named after the schema, so servers
-- of another deployment on the same database are not woken. Statement level: one notification per INSERT
-- statement, however many rows a batch inserts.
CREATE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('durability_outbox_' || current_schema(), '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER event_outbox_staged AFTER INSERT ON event_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify();
