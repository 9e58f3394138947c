-- The demo application's own tables (war-demo, dev.durability.demo), for the same runtime role
-- as postgresql.sql, after the demo's migrations (db/demo, history table demo_schema_history). Run as their
-- owner:
--
--   psql -v ON_ERROR_STOP=1 -v schema=durability -v runtime=orders_app -f demo-postgresql.sql
--
-- An adopter's own tables need their own grants; these are only the reference deployment's.

-- the demo validates its tables at start when durability.schema.migrate=false
GRANT SELECT ON :"schema".demo_schema_history TO :"runtime";
-- orders placed and read back by their caller
GRANT SELECT, INSERT ON :"schema".demo_orders TO :"runtime";
-- the shipments consumer's effect, inserted once per order
GRANT SELECT, INSERT ON :"schema".demo_shipments TO :"runtime";
