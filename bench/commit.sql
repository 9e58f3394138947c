-- One row and one commit per transaction: PostgreSQL's commit rate for the outbox's kind of write.
INSERT INTO durability_bench_raw.commits (id, body) VALUES (gen_random_uuid(), '{"event_type":"bench.raw"}');
