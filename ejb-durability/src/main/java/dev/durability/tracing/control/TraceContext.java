package dev.durability.tracing.control;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A span's context as the W3C Trace Context headers carry it: what an outbox row stores and a message sends.
 * Written and read by OpenTelemetry's own propagator, so a malformed header from another producer is ignored
 * (an invalid context), never an error.
 *
 * @param traceparent the {@code traceparent} header, never null
 * @param tracestate the {@code tracestate} header, or null when the span has none
 */
public record TraceContext(String traceparent, String tracestate) {
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";

    private static final TextMapSetter<Map<String, String>> SETTER = Map::put;

    private static final TextMapGetter<Map<String, ?>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, ?> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, ?> carrier, String key) {
            // AMQP header values arrive as the client's LongString: its text is the header's value.
            Object value = carrier == null ? null : carrier.get(key);
            return value == null ? null : value.toString();
        }
    };

    /** The context of the span current in {@code context}, when it is a valid one. */
    public static Optional<TraceContext> of(Context context) {
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return Optional.empty();
        }
        Map<String, String> headers = new HashMap<>();
        W3CTraceContextPropagator.getInstance().inject(context, headers, SETTER);
        String traceparent = headers.get(TRACEPARENT);
        return traceparent == null
                ? Optional.empty()
                : Optional.of(new TraceContext(traceparent, headers.get(TRACESTATE)));
    }

    /** The context of this span. */
    public static Optional<TraceContext> of(Span span) {
        return of(Context.root().with(span));
    }

    /** The context the current span has, if any: the one read a staging makes when nothing traces. */
    public static Optional<TraceContext> current() {
        return of(Context.current());
    }

    /** The context message headers (or a CloudEvent's extension attributes) name, if they name a valid one. */
    public static Optional<TraceContext> fromHeaders(Map<String, ?> headers) {
        if (headers == null || headers.get(TRACEPARENT) == null) {
            return Optional.empty();
        }
        Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, GETTER);
        return of(extracted);
    }

    /** The context from a {@code traceparent} and {@code tracestate} as stored, if they make a valid one. */
    public static Optional<TraceContext> fromStored(String traceparent, String tracestate) {
        if (traceparent == null) {
            return Optional.empty();
        }
        Map<String, String> headers = new HashMap<>();
        headers.put(TRACEPARENT, traceparent);
        if (tracestate != null) {
            headers.put(TRACESTATE, tracestate);
        }
        return fromHeaders(headers);
    }

    /** This context as the remote parent of spans made from it. */
    public Context asParent() {
        Map<String, String> headers = new HashMap<>();
        addTo(headers);
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, GETTER);
    }

    public SpanContext spanContext() {
        return Span.fromContext(asParent()).getSpanContext();
    }

    /** The 32 hex digits of the trace. */
    public String traceId() {
        return spanContext().getTraceId();
    }

    /** Adds the headers to a message's headers. */
    public void addTo(Map<String, ? super String> headers) {
        headers.put(TRACEPARENT, traceparent);
        if (tracestate != null && !tracestate.isEmpty()) {
            headers.put(TRACESTATE, tracestate);
        }
    }
}
