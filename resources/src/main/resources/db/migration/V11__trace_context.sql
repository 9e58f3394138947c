-- W3C trace context (docs/operations.md, "Tracing"; docs/decisions/0077-trace-context-with-mp-telemetry.md).
-- traceparent and tracestate: the context of the span that staged the row, kept so the drain's publish span
-- continues that trace however long the row waits. replay_traceparent: the context of the operator's replay or
-- redrive that restaged the row last, which the next publish span links to. trace_id: the trace a dead letter
-- ends, shown on the admin pages. All nullable without a default: added without a table rewrite, and rows
-- staged while no span was current (no tracing configured) hold nothing.
ALTER TABLE event_outbox ADD COLUMN traceparent text;
ALTER TABLE event_outbox ADD COLUMN tracestate text;
ALTER TABLE event_outbox ADD COLUMN replay_traceparent text;
ALTER TABLE dead_letter_audit ADD COLUMN trace_id text;
