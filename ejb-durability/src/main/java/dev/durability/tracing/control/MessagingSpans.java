package dev.durability.tracing.control;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.UUID;

/**
 * The library's spans, named and attributed after OpenTelemetry's messaging conventions (docs/operations.md,
 * "Tracing"). They come from MicroProfile Telemetry's {@link OpenTelemetry}: a server that configures no exporter
 * (mpTelemetry's SDK is disabled by default) gets its no-op spans, and no trace context is recorded
 * (docs/decisions/0077-trace-context-with-mp-telemetry.md). Only API that OpenTelemetry 1.39 has is called: that is
 * the version Liberty provides.
 */
@ApplicationScoped
public class MessagingSpans {
    static final String INSTRUMENTATION = "dev.durability";

    public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    public static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    public static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    public static final AttributeKey<String> ROUTING_KEY =
            AttributeKey.stringKey("messaging.rabbitmq.destination.routing_key");
    /** The consumer's attempt at the delivery (1 for the first), our own attribute. */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("durability.attempt");
    /** How many rows a replay restaged, our own attribute. */
    public static final AttributeKey<Long> RESTAGED = AttributeKey.longKey("durability.restaged");

    @Inject
    Instance<OpenTelemetry> openTelemetry;

    private volatile Tracer tracer;

    /** Spans of this {@link OpenTelemetry}, for code outside CDI (a test's own listener). */
    public static MessagingSpans of(OpenTelemetry telemetry) {
        MessagingSpans spans = new MessagingSpans();
        spans.tracer = telemetry.getTracer(INSTRUMENTATION);
        return spans;
    }

    private Tracer tracer() {
        Tracer current = tracer;
        if (current == null) {
            // Resolvable where mpTelemetry is enabled; a deployment without it (an in-container test WAR) traces
            // nothing.
            OpenTelemetry telemetry =
                    openTelemetry != null && openTelemetry.isResolvable() ? openTelemetry.get() : OpenTelemetry.noop();
            current = telemetry.getTracer(INSTRUMENTATION);
            tracer = current;
        }
        return current;
    }

    /**
     * The {@code create} span of one staged event, a child of the caller's current span, ended at once: what the
     * outbox row stores. Nothing when no span is current, so an untraced request costs this one check.
     */
    public Optional<TraceContext> create(String exchange, String eventType, UUID eventId) {
        if (!Span.current().getSpanContext().isValid()) {
            return Optional.empty();
        }
        Span span = messaging(tracer().spanBuilder("create " + exchange), SpanKind.PRODUCER, "create", exchange)
                .setAttribute(OPERATION_NAME, "create")
                .setAttribute(ROUTING_KEY, eventType)
                .setAttribute(MESSAGE_ID, eventId.toString())
                .startSpan();
        try {
            // A no-op tracer hands back the current span itself: the caller's context is stored then, as it is.
            return TraceContext.of(span);
        } finally {
            span.end();
        }
    }

    /**
     * The {@code publish} span of one outbox row's message: a child of the row's {@code create} span, linked to it
     * as the conventions ask of a send, and linked to the replay that restaged it, if one did. Started when the
     * message is written, ended by {@link #settled}.
     */
    public Span publish(
            TraceContext created, Optional<TraceContext> replayedBy, String exchange, String routingKey, UUID id) {
        SpanBuilder builder = messaging(
                        tracer().spanBuilder("publish " + exchange), SpanKind.PRODUCER, "send", exchange)
                .setParent(created.asParent())
                .addLink(created.spanContext())
                .setAttribute(OPERATION_NAME, "publish")
                .setAttribute(ROUTING_KEY, routingKey)
                .setAttribute(MESSAGE_ID, id.toString());
        replayedBy.ifPresent(replay -> builder.addLink(replay.spanContext()));
        return builder.startSpan();
    }

    /** Ends a publish span with the broker's word: an error unless it confirmed the message routed. */
    public static void settled(Span span, boolean confirmed, String problem) {
        if (!confirmed) {
            span.setStatus(StatusCode.ERROR, problem == null ? "not confirmed" : problem);
        }
        span.end();
    }

    /**
     * The {@code process} span of one delivery to a consumer queue: a child of the publish span the message names
     * (its headers, or a CloudEvent's distributed-tracing extension), or a new trace when it names none. The caller
     * makes it current around the handler's transaction, so the handler's own spans are inside it.
     */
    public Span process(String queue, Optional<TraceContext> sentWith, String messageId, int attempt) {
        SpanBuilder builder = messaging(tracer().spanBuilder("process " + queue), SpanKind.CONSUMER, "process", queue)
                .setParent(sentWith.map(TraceContext::asParent).orElse(Context.root()))
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(ATTEMPT, (long) attempt);
        if (messageId != null) {
            builder.setAttribute(MESSAGE_ID, messageId);
        }
        return builder.startSpan();
    }

    /** Marks a span failed, with the failure recorded as its exception event. */
    public static void failed(Span span, String why, Throwable failure) {
        span.setStatus(StatusCode.ERROR, why);
        if (failure != null) {
            span.recordException(failure);
        }
    }

    /**
     * The {@code dead letter} span of a dead letter's arrival in the audit: a child of the span that gave up on it
     * (the consumer's process span, or the publish span when the broker dead-lettered it), always an error.
     */
    public Span deadLetter(String originalQueue, Optional<TraceContext> sentWith, String messageId, String reason) {
        SpanBuilder builder = messaging(
                        tracer().spanBuilder("dead letter " + (originalQueue == null ? "unknown" : originalQueue)),
                        SpanKind.CONSUMER,
                        "process",
                        originalQueue == null ? "unknown" : originalQueue)
                .setParent(sentWith.map(TraceContext::asParent).orElse(Context.root()))
                .setAttribute(OPERATION_NAME, "dead letter");
        if (messageId != null) {
            builder.setAttribute(MESSAGE_ID, messageId);
        }
        Span span = builder.startSpan();
        span.setStatus(StatusCode.ERROR, reason == null ? "dead-lettered" : reason);
        return span;
    }

    /**
     * The span of an operator's replay or redrive, a child of the operator's request span: each row it restages
     * stores its context, and the row's next publish span links to it.
     */
    public Span replay(String name) {
        return tracer().spanBuilder(name).setSpanKind(SpanKind.INTERNAL).startSpan();
    }

    private static SpanBuilder messaging(SpanBuilder builder, SpanKind kind, String operationType, String destination) {
        return builder.setSpanKind(kind)
                .setAttribute(SYSTEM, "rabbitmq")
                .setAttribute(OPERATION_TYPE, operationType)
                .setAttribute(DESTINATION, destination);
    }
}
