package dev.durability.bench.db;

import java.sql.SQLException;

/**
 * A benchmark's schema, migrated by the server that uses it: put in the state of a schema in service for over a
 * week, so the rows a benchmark stages land in their day's partition as in production, not in the legacy partition
 * a fresh schema sends its first week to (docs/schema.md, "Partitions").
 */
public final class BenchSchema {
    private BenchSchema() {}

    public static void drop(String schema) throws SQLException {
        Database.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    /**
     * Retires a freshly migrated schema's empty legacy partitions and makes today's and the next days' partitions.
     * Refuses a schema that holds rows or day partitions already: retiring its legacy partition there would drop
     * rows.
     */
    public static void inService(String schema) throws SQLException {
        Database.execute("SET search_path = " + schema + ";\n" + """
                DO $$
                DECLARE
                    t text;
                    n int;
                BEGIN
                    FOREACH t IN ARRAY ARRAY['event_outbox', 'event_inbox'] LOOP
                        IF EXISTS (SELECT 1 FROM durability_day_partitions(t) WHERE by_day) THEN
                            RAISE EXCEPTION '% has day partitions already: not a freshly migrated schema', t;
                        END IF;
                        EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %I LIMIT 1) r', t) INTO n;
                        IF n > 0 THEN
                            RAISE EXCEPTION '% holds rows: not a freshly migrated schema', t;
                        END IF;
                    END LOOP;
                    SELECT dropped INTO n FROM event_outbox_retire_partitions(1, 0, now() + interval '8 days');
                    IF n <> 1 THEN
                        RAISE EXCEPTION 'event_outbox_legacy was not retired (its lock did not come?)';
                    END IF;
                    SELECT dropped INTO n FROM event_inbox_retire_partitions(1, now() + interval '8 days');
                    IF n <> 1 THEN
                        RAISE EXCEPTION 'event_inbox_legacy was not retired (its lock did not come?)';
                    END IF;
                    PERFORM durability_make_day_partitions('event_outbox'), durability_make_day_partitions('event_inbox');
                    FOREACH t IN ARRAY ARRAY['event_outbox', 'event_inbox'] LOOP
                        IF NOT EXISTS (SELECT 1 FROM durability_day_partitions(t)
                                        WHERE by_day AND lower_bound <= durability_uuid7_at(now())
                                          AND upper_bound > durability_uuid7_at(now())) THEN
                            RAISE EXCEPTION '% has no partition for today', t;
                        END IF;
                    END LOOP;
                END
                $$""");
    }
}
