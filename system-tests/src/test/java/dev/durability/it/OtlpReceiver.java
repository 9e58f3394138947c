package dev.durability.it;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver (binary protobuf, the protocol's own messages from {@code opentelemetry-proto}): what a
 * collector would receive from a server pointed at it with {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}. It keeps every
 * span it was sent, with the service name of its resource.
 */
final class OtlpReceiver implements AutoCloseable {
    static final String PATH = "/v1/traces";

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Received> spans = new ConcurrentLinkedQueue<>();

    /** A span as exported, its ids in hex as the W3C headers write them. */
    record Received(String service, Span span) {
        String traceId() {
            return hex(span.getTraceId());
        }

        String spanId() {
            return hex(span.getSpanId());
        }

        String parentSpanId() {
            return hex(span.getParentSpanId());
        }

        String name() {
            return span.getName();
        }

        Span.SpanKind kind() {
            return span.getKind();
        }

        /** A string attribute's value, if the span has it. */
        Optional<String> attribute(String key) {
            return span.getAttributesList().stream()
                    .filter(a -> a.getKey().equals(key))
                    .map(KeyValue::getValue)
                    .map(AnyValue::getStringValue)
                    .findFirst();
        }

        /** The span ids its links point at, in order. */
        List<String> linkedSpanIds() {
            return span.getLinksList().stream().map(l -> hex(l.getSpanId())).toList();
        }

        List<String> linkedTraceIds() {
            return span.getLinksList().stream().map(l -> hex(l.getTraceId())).toList();
        }

        boolean isError() {
            return span.getStatus().getCode() == io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR;
        }
    }

    OtlpReceiver(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext(PATH, this::export);
        server.start();
    }

    private void export(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                        ? new GZIPInputStream(in).readAllBytes()
                        : in.readAllBytes();
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service = resource.getResource().getAttributesList().stream()
                        .filter(a -> a.getKey().equals("service.name"))
                        .map(a -> a.getValue().getStringValue())
                        .findFirst()
                        .orElse("");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    scope.getSpansList().forEach(span -> spans.add(new Received(service, span)));
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    List<Received> spans() {
        return List.copyOf(spans);
    }

    /** The span with this id, if it arrived. */
    Optional<Received> span(String spanId) {
        return spans.stream().filter(s -> s.spanId().equals(spanId)).findFirst();
    }

    private static String hex(ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
