package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import jakarta.json.Json;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Trace context end to end (docs/operations.md, "Tracing"): a server exporting its traces over OTLP/HTTP to a
 * receiver of the test's own, on a schema and a broker virtual host of its own (so its consumers take only its own
 * events). Every assertion is on the ids the server exported: which span is whose parent, which it links to, and that
 * they share one trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingIT {
    private static final String SCHEMA = "durability_tracing";
    private static final String VIRTUAL_HOST = "durability-tracing";
    private static final int OTLP_PORT = 14318;
    private static final String EXCHANGE = "durability.events";
    private static final String QUEUE = "orders.shipments";
    private static final Duration EXPORTED = Duration.ofSeconds(30);

    private OtlpReceiver receiver;
    private LibertyServer server;

    @BeforeAll
    void startServer() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        Rabbitmq.addVirtualHost(VIRTUAL_HOST);
        receiver = new OtlpReceiver(OTLP_PORT);
        server = LibertyServer.copyOfMain(
                "durability-tracing",
                9188,
                Map.ofEntries(
                        Map.entry("DB_SCHEMA", SCHEMA),
                        Map.entry("DURABILITY_INSTANCE_NAME", "it-tracing"),
                        // Its own virtual host: its consumers take its own events, not the shared server's.
                        Map.entry("DURABILITY_BROKER_VIRTUAL_HOST", VIRTUAL_HOST),
                        Map.entry("DURABILITY_INBOX_ENABLED", "true"),
                        Map.entry("OTEL_SDK_DISABLED", "false"),
                        Map.entry("OTEL_SERVICE_NAME", "orders-tracing-it"),
                        Map.entry("OTEL_TRACES_EXPORTER", "otlp"),
                        Map.entry("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
                        Map.entry(
                                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                                "http://127.0.0.1:" + OTLP_PORT + OtlpReceiver.PATH),
                        Map.entry("OTEL_BSP_SCHEDULE_DELAY", "100"),
                        Map.entry("OTEL_METRICS_EXPORTER", "none"),
                        Map.entry("OTEL_LOGS_EXPORTER", "none")));
        server.start();
        server.awaitApplicationStarted();
    }

    @AfterAll
    void stopServer() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            if (receiver != null) {
                receiver.close();
            }
        }
    }

    @Test
    void anOrdersTraceRunsFromItsRequestThroughStagingAndPublishToTheShipmentsConsumer() {
        String eventId = placeOrder();

        OtlpReceiver.Received create = awaitSpan(
                "the order's create span",
                s -> s.name().equals("create " + EXCHANGE)
                        && s.attribute("messaging.message.id").equals(Optional.of(eventId)));
        assertThat(create.kind()).isEqualTo(SpanKind.SPAN_KIND_PRODUCER);
        assertThat(create.service()).isEqualTo("orders-tracing-it");
        assertThat(create.attribute("messaging.system")).hasValue("rabbitmq");
        assertThat(create.attribute("messaging.operation.type")).hasValue("create");
        assertThat(create.attribute("messaging.rabbitmq.destination.routing_key"))
                .hasValue("order.placed");

        OtlpReceiver.Received request =
                awaitSpan("the POST's server span", s -> s.spanId().equals(create.parentSpanId()));
        assertThat(request.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
        assertThat(request.name()).startsWith("POST").contains("/orders");
        assertThat(request.parentSpanId()).as("the request is the trace's root").isEmpty();
        String trace = request.traceId();
        assertThat(create.traceId()).isEqualTo(trace);

        OtlpReceiver.Received publish = awaitSpan(
                "the order's publish span",
                s -> s.name().equals("publish " + EXCHANGE)
                        && s.attribute("messaging.message.id").equals(Optional.of(eventId)));
        assertThat(publish.kind()).isEqualTo(SpanKind.SPAN_KIND_PRODUCER);
        assertThat(publish.traceId()).isEqualTo(trace);
        assertThat(publish.parentSpanId()).isEqualTo(create.spanId());
        assertThat(publish.linkedSpanIds()).containsExactly(create.spanId());
        assertThat(publish.linkedTraceIds()).containsExactly(trace);
        assertThat(publish.isError()).as("confirmed by the broker").isFalse();
        assertThat(publish.attribute("messaging.destination.name")).hasValue(EXCHANGE);
        assertThat(publish.attribute("messaging.operation.type")).hasValue("send");

        OtlpReceiver.Received process =
                awaitSpan("the shipments consumer's span", s -> s.parentSpanId().equals(publish.spanId()));
        assertThat(process.name()).isEqualTo("process " + QUEUE);
        assertThat(process.kind()).isEqualTo(SpanKind.SPAN_KIND_CONSUMER);
        assertThat(process.traceId()).isEqualTo(trace);
        assertThat(process.isError()).isFalse();
        assertThat(process.attribute("messaging.message.id")).hasValue(eventId);

        // The handler's work is inside its process span: the shipment it stages is created there.
        OtlpReceiver.Received shipment =
                awaitSpan("the shipment's create span", s -> s.parentSpanId().equals(process.spanId()));
        assertThat(shipment.name()).isEqualTo("create " + EXCHANGE);
        assertThat(shipment.attribute("messaging.rabbitmq.destination.routing_key"))
                .hasValue("shipment.created");
        assertThat(shipment.traceId()).isEqualTo(trace);
    }

    @Test
    void aDeadLettersTraceEndsInTheDeadLetterSpanWhoseTraceIdTheAuditKeeps() throws Exception {
        // Another producer's trace: the message names its span as its parent.
        String trace = HexFormat.of().formatHex(randomBytes(16));
        String producerSpan = HexFormat.of().formatHex(randomBytes(8));
        UUID orderId = UUID.randomUUID();
        EventEnvelope refused = EventEnvelope.builder("order.placed", "shop")
                .aggregateId(orderId)
                .payload(Json.createObjectBuilder()
                        .add("order_id", orderId.toString())
                        .add("sku", "drum")
                        // The shipments handler refuses it as a permanent failure: dead-lettered at once.
                        .add("quantity", 0)
                        .build())
                .build();
        try (Amqp amqp = new Amqp(VIRTUAL_HOST)) {
            amqp.publish(
                    EXCHANGE,
                    "order.placed",
                    Amqp.persistent(Map.of("traceparent", "00-" + trace + "-" + producerSpan + "-01"))
                            .messageId(refused.id().toString())
                            .build(),
                    Amqp.bytes(refused));
        }

        OtlpReceiver.Received process = awaitSpan(
                "the consumer's failed process span", s -> s.parentSpanId().equals(producerSpan));
        assertThat(process.name()).isEqualTo("process " + QUEUE);
        assertThat(process.traceId()).isEqualTo(trace);
        assertThat(process.isError()).isTrue();

        OtlpReceiver.Received deadLetter =
                awaitSpan("the dead letter's span", s -> s.parentSpanId().equals(process.spanId()));
        assertThat(deadLetter.name()).isEqualTo("dead letter " + QUEUE);
        assertThat(deadLetter.traceId()).isEqualTo(trace);
        assertThat(deadLetter.isError()).isTrue();
        assertThat(deadLetter.attribute("messaging.message.id"))
                .hasValue(refused.id().toString());

        await("the dead letter audited with its trace")
                .atMost(EXPORTED)
                .until(() -> auditedTraceIds(refused.id()), ids -> !ids.isEmpty());
        assertThat(auditedTraceIds(refused.id())).containsExactly(trace);
    }

    @Test
    void aReplayMakesItsSpanUnderTheOperatorsRequestAndTheRepublishLinksToIt() {
        String eventId = placeOrder();
        OtlpReceiver.Received first = awaitSpan(
                "the order's first publish span",
                s -> s.name().equals("publish " + EXCHANGE)
                        && s.attribute("messaging.message.id").equals(Optional.of(eventId)));
        // Only a published row is restaged: the stamp commits after the publish span ends.
        await("the order's row published").atMost(EXPORTED).until(() -> published(UUID.fromString(eventId)));
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        HttpResponse<String> answer = replay(now.minusMinutes(5), now.plusMinutes(1));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        URI job = URI.create(answer.headers().firstValue("Location").orElseThrow());
        await("the replay job done")
                .atMost(EXPORTED)
                .until(
                        () -> Http.json(Http.send(
                                HttpRequest.newBuilder(server.httpsUri().resolve(job.getPath()))
                                        .timeout(Duration.ofSeconds(30))
                                        .header("Authorization", "Bearer " + AdminTokens.admin("tracing-it"))
                                        .GET()
                                        .build())),
                        state -> state.getString("state").equals("done"));
        assertThat(Http.json(answer).getInt("matched")).isPositive();

        OtlpReceiver.Received replay =
                awaitSpan("the replay span", s -> s.name().equals("replay"));
        OtlpReceiver.Received operator =
                awaitSpan("the admin request's span", s -> s.spanId().equals(replay.parentSpanId()));
        assertThat(operator.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
        assertThat(operator.name()).startsWith("POST").contains("replay");
        assertThat(replay.traceId()).isEqualTo(operator.traceId());

        OtlpReceiver.Received again = awaitSpan(
                "the order's publish after the replay",
                s -> s.name().equals("publish " + EXCHANGE)
                        && s.attribute("messaging.message.id").equals(Optional.of(eventId))
                        && s.linkedSpanIds().contains(replay.spanId()));
        // The replayed row keeps its own trace: the same create span is its parent, and it links to the replay too.
        assertThat(again.traceId()).isEqualTo(first.traceId());
        assertThat(again.parentSpanId()).isEqualTo(first.parentSpanId());
        assertThat(again.linkedSpanIds()).containsExactly(first.parentSpanId(), replay.spanId());
        assertThat(again.linkedTraceIds()).containsExactly(first.traceId(), replay.traceId());
    }

    /** Places an order on the server's orders API and returns its event's id. */
    private String placeOrder() {
        HttpResponse<String> response =
                Http.postJson(server.uri(), "/api/orders", "{\"customer\":\"ada\",\"sku\":\"kite\",\"quantity\":2}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return Http.json(response).getString("event_id");
    }

    private HttpResponse<String> replay(OffsetDateTime from, OffsetDateTime to) {
        String query = "from=" + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8) + "&to="
                + URLEncoder.encode(to.toString(), StandardCharsets.UTF_8) + "&event_type=order.placed";
        return Http.send(HttpRequest.newBuilder(server.httpsUri().resolve("/admin/events/replay?" + query))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + AdminTokens.admin("tracing-it"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    private OtlpReceiver.Received awaitSpan(String what, Predicate<OtlpReceiver.Received> matching) {
        return await(what)
                .atMost(EXPORTED)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> receiver.spans().stream().filter(matching).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    private static List<String> auditedTraceIds(UUID envelopeId) throws Exception {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT trace_id FROM " + SCHEMA + ".dead_letter_audit WHERE envelope_id = ? ORDER BY id")) {
            s.setObject(1, envelopeId);
            try (ResultSet rs = s.executeQuery()) {
                List<String> ids = new ArrayList<>();
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
                return ids;
            }
        }
    }

    private static boolean published(UUID eventId) throws Exception {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT published_at IS NOT NULL FROM " + SCHEMA + ".event_outbox WHERE id = ?")) {
            s.setObject(1, eventId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        ThreadLocalRandom.current().nextBytes(bytes);
        bytes[0] |= 1; // never all zeros: an invalid id
        return bytes;
    }
}
