package dev.durability.tracing.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.impl.LongStringHelper;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TraceContextTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE + "-" + SPAN + "-01";

    @Test
    void aSpansContextIsWrittenAsW3cHeadersAndReadBack() {
        SpanContext span = SpanContext.create(
                TRACE,
                SPAN,
                TraceFlags.getSampled(),
                TraceState.builder().put("vendor", "x1").build());

        TraceContext context = TraceContext.of(Span.wrap(span)).orElseThrow();

        assertThat(context.traceparent()).isEqualTo(TRACEPARENT);
        assertThat(context.tracestate()).isEqualTo("vendor=x1");
        assertThat(context.traceId()).isEqualTo(TRACE);
        assertThat(context.spanContext().getSpanId()).isEqualTo(SPAN);
        assertThat(context.spanContext().isRemote()).isTrue();
        Map<String, Object> headers = new HashMap<>();
        context.addTo(headers);
        assertThat(headers).containsOnly(Map.entry("traceparent", TRACEPARENT), Map.entry("tracestate", "vendor=x1"));
    }

    @Test
    void amqpHeadersArriveAsLongStringsAndAreReadAsText() {
        Map<String, Object> headers = Map.of("traceparent", LongStringHelper.asLongString(TRACEPARENT));

        assertThat(TraceContext.fromHeaders(headers)).hasValue(new TraceContext(TRACEPARENT, null));
    }

    @Test
    void noSpanAndMalformedHeadersGiveNoContextNeverAnError() {
        assertThat(TraceContext.of(Span.getInvalid())).isEmpty();
        assertThat(TraceContext.current()).isEmpty();
        assertThat(TraceContext.fromHeaders(null)).isEmpty();
        assertThat(TraceContext.fromHeaders(Map.of())).isEmpty();
        assertThat(TraceContext.fromStored(null, "vendor=x1")).isEmpty();
        for (String hostile : new String[] {
            "",
            "garbage",
            "00-" + "0".repeat(32) + "-" + SPAN + "-01",
            "00-" + TRACE + "-" + "0".repeat(16) + "-01",
            "ff-" + TRACE + "-" + SPAN + "-01",
            "00-" + TRACE.toUpperCase() + "-" + SPAN + "-01",
            "x".repeat(100_000)
        }) {
            assertThat(TraceContext.fromStored(hostile, null))
                    .as(hostile.length() > 80 ? "long" : hostile)
                    .isEmpty();
        }
        // A header that is no text at all (a foreign producer's byte array) is no context either.
        assertThat(TraceContext.fromHeaders(Map.of("traceparent", new byte[] {1, 2})))
                .isEqualTo(Optional.empty());
    }
}
