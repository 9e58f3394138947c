package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The drain under conditions a long-running service meets: a backlog in which some messages fail,
 * envelopes as large as staging allows, and the figures it reports afterwards. One server of its own
 * (its own schema and events exchange) with a long poll interval and a short tick budget, so that a
 * drain that stopped at a failure, or did not continue after its budget, would show as a wait for the
 * next poll; and the shipped heap (liberty-config/jvm.options, exit on OutOfMemoryError).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DrainResilienceIT {
    private static final String SCHEMA = "durability_drain";
    private static final String EXCHANGE = "durability.events.drain-it";
    private static final Duration POLL = Duration.ofSeconds(20);

    private final OutboxTable outbox = new OutboxTable(SCHEMA);
    private LibertyServer server;

    @BeforeAll
    void startServer() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        server = LibertyServer.copyOfMain(
                "durability-drain",
                9193,
                Map.of(
                        "DB_SCHEMA",
                        SCHEMA,
                        "DURABILITY_INSTANCE_NAME",
                        "it-drain",
                        "DURABILITY_BROKER_EVENTS_EXCHANGE",
                        EXCHANGE,
                        "DURABILITY_OUTBOX_POLL_INTERVAL_MS",
                        Long.toString(POLL.toMillis()),
                        "DURABILITY_OUTBOX_TICK_BUDGET_MS",
                        "300"));
        server.start();
        server.awaitApplicationStarted();
    }

    @AfterAll
    void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void emptyOutbox() throws Exception {
        outbox.deleteAll();
    }

    private static List<EventEnvelope> envelopes(String eventType, int count) {
        return OutboxTable.envelopes(eventType, count);
    }

    /** A row the drain cannot read: its stored envelope has an occurred_at that is no time at all. */
    private UUID seedUnreadable(String eventType) throws Exception {
        EventEnvelope envelope = envelopes(eventType, 1).get(0);
        String text = EnvelopeJson.write(envelope).replace(envelope.occurredAt().toString(), "yesterday");
        outbox.seedRaw(envelope.id(), eventType, text);
        return envelope.id();
    }

    private static Set<String> ids(List<EventEnvelope> envelopes) {
        return envelopes.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
    }

    private static Set<String> ids(EventQueue queue) {
        return queue.messages().stream().map(EventQueue.Message::id).collect(Collectors.toSet());
    }

    @Test
    void theGoodRowsOfAMixedBacklogArePublishedWithoutWaitingForALaterPoll() throws Exception {
        String good = "mixed.good_" + Long.toHexString(System.nanoTime());
        String refused = "mixed.refused_" + Long.toHexString(System.nanoTime());
        try (EventQueue deliveries = new EventQueue(EXCHANGE, Map.of(), Map.of(), good);
                EventQueue full = EventQueue.rejectingEverything(EXCHANGE, refused)) {
            // 2,000 rows, one in ten failing: nacked by a full queue, or unreadable. Claims take rows by creation
            // time, then id (UUIDv7, in the order built): every chunk of 100 holds its share of failing rows.
            List<EventEnvelope> goodRows = new ArrayList<>();
            List<EventEnvelope> nackedRows = new ArrayList<>();
            List<UUID> unreadable = new ArrayList<>();
            for (int chunk = 0; chunk < 20; chunk++) {
                List<EventEnvelope> rows = new ArrayList<>();
                for (int i = 0; i < 97; i++) {
                    EventEnvelope row =
                            envelopes(i % 13 == 0 ? refused : good, 1).get(0);
                    (i % 13 == 0 ? nackedRows : goodRows).add(row);
                    rows.add(row);
                }
                outbox.seed(rows);
                for (int i = 0; i < 3; i++) {
                    unreadable.add(seedUnreadable(good));
                }
            }

            await("the first event of the backlog")
                    .atMost(POLL.plusSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> !deliveries.messages().isEmpty());
            Instant firstArrival = Instant.now();
            // A drain that stopped at the first failed batch, or at its 300 ms budget, would wait 20 s for the
            // next poll; one that goes on publishes the whole backlog well before that.
            await("every good row, within one poll interval")
                    .atMost(POLL.minusSeconds(5))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> ids(deliveries).containsAll(ids(goodRows)));
            assertThat(Duration.between(firstArrival, Instant.now())).isLessThan(POLL.minusSeconds(5));

            // Failed rows back off (1 s, then 2 s, ...) and are retried while the burst still drains.
            for (EventEnvelope nacked : nackedRows.subList(0, 10)) {
                OutboxTable.Row row = outbox.row(nacked.id());
                assertThat(row.publishedAt()).isNull();
                assertThat(row.attempts()).isPositive();
                assertThat(row.lastError()).isEqualTo("nacked by the broker");
                assertThat(row.claimedAt()).as("claim released at once").isNull();
                assertThat(row.nextAttemptAt()).isAfter(row.lastAttemptAt());
            }
            OutboxTable.Row broken = outbox.row(unreadable.get(0));
            assertThat(broken.publishedAt()).isNull();
            assertThat(broken.attempts()).isPositive();
            assertThat(broken.lastError()).startsWith("invalid envelope:").contains("occurred_at");
        }
    }

    @Test
    void aRowThatCannotBecomeAMessageFailsAloneWhileTheBatchesAroundItPublish() throws Exception {
        String good = "alone.good_" + Long.toHexString(System.nanoTime());
        try (EventQueue deliveries = new EventQueue(EXCHANGE, Map.of(), Map.of(), good)) {
            // Three claims' worth (the shipped batch is 1,000): the drain sends the next claim while the one
            // holding the bad row awaits its confirms, so a failure of the link's kind there would take both.
            List<EventEnvelope> before = envelopes(good, 1_200);
            EventEnvelope bad = envelopes(good, 1).get(0);
            List<EventEnvelope> after = envelopes(good, 1_500);
            // A time Instant reads but java.util.Date cannot hold: the AMQP timestamp cannot be built from it.
            String farFuture =
                    EnvelopeJson.write(bad).replace(bad.occurredAt().toString(), "+300000000-01-01T00:00:00Z");
            List<EventEnvelope> rows = new ArrayList<>(before);
            rows.add(bad);
            rows.addAll(after);
            // One transaction: the drain must find the bad row amid others, not alone in a claim.
            outbox.seed(rows, Map.of(bad.id(), farFuture));
            List<EventEnvelope> goodRows = new ArrayList<>(before);
            goodRows.addAll(after);

            deliveries.awaitArrivalOf(goodRows, POLL.plusSeconds(30));
            await("every other row stamped published at its first attempt, the bad row failed")
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        assertThat(outbox.count("event_type = ? AND published_at IS NOT NULL AND attempts = 0", good))
                                .isEqualTo(goodRows.size());
                        assertThat(outbox.row(bad.id()).attempts()).isPositive();
                    });
            OutboxTable.Row row = outbox.row(bad.id());
            assertThat(row.publishedAt()).isNull();
            assertThat(row.lastError()).startsWith("unpublishable envelope:");
            assertThat(row.claimedAt()).as("claim released at once").isNull();
            assertThat(row.nextAttemptAt()).isAfter(row.lastAttemptAt());
        }
    }

    @Test
    void aBacklogOfTheLargestEnvelopesOfSmallObjectsDrainsOnTheShippedHeap() throws Exception {
        String heavy = "heavy.drained_" + Long.toHexString(System.nanoTime());
        // Just under the 1 MiB envelope limit: 120,000 small objects, whose parsed tree would take ~30 MB each.
        JsonArrayBuilder items = Json.createArrayBuilder();
        for (int i = 0; i < 120_000; i++) {
            items.add(Json.createObjectBuilder().add("a", i % 10));
        }
        JsonObject payload = Json.createObjectBuilder().add("items", items).build();
        List<EventEnvelope> envelopes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            envelopes.add(
                    EventEnvelope.builder(heavy, "orders").payload(payload).build());
        }
        assertThat(EnvelopeJson.write(envelopes.get(0)).length()).isBetween(900_000, 1_048_576);
        try (EventQueue queue = new EventQueue(EXCHANGE, Map.of(), Map.of(), heavy)) {
            outbox.seed(envelopes);
            await("100 heavy envelopes published")
                    .atMost(POLL.plusSeconds(90))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> outbox.count("event_type = ? AND published_at IS NULL", heavy) == 0);
            queue.awaitArrivalOf(envelopes, Duration.ofSeconds(30));
        }
        assertThat(server.messagesLog()).doesNotContain("OutOfMemoryError");
        assertThat(Http.get(server.uri(), "/metrics").statusCode())
                .as("the server is still up")
                .isEqualTo(200);
    }

    /** The attempts recorded on the rows of these types that were never published. */
    private int failedAttempts(String... eventTypes) throws SQLException {
        int attempts = 0;
        for (String type : eventTypes) {
            for (OutboxTable.Row row : outbox.rowsOfType(type)) {
                if (row.publishedAt() == null) {
                    attempts += row.attempts();
                }
            }
        }
        return attempts;
    }

    @Test
    void metricsReportTheFiguresOfAScriptedScenario() throws Exception {
        URI uri = server.uri();
        String good = "scripted.good_" + Long.toHexString(System.nanoTime());
        String refused = "scripted.refused_" + Long.toHexString(System.nanoTime());
        String unbound = "scripted.unbound_" + Long.toHexString(System.nanoTime());
        double published = Http.metric(uri, "durability_outbox_published_total");
        double unroutable = Http.metric(uri, "durability_outbox_unroutable_total");
        double failures = Http.metric(uri, "durability_outbox_publish_failures_total");
        double lagCount = Http.metric(uri, "durability_outbox_publish_lag_seconds_count");
        try (EventQueue deliveries = new EventQueue(EXCHANGE, Map.of(), Map.of(), good);
                EventQueue full = EventQueue.rejectingEverything(EXCHANGE, refused)) {
            List<EventEnvelope> goodRows = envelopes(good, 10);
            outbox.seed(goodRows);
            outbox.seed(envelopes(refused, 2));
            outbox.seed(envelopes(unbound, 1));
            seedUnreadable(good);

            deliveries.awaitArrivalOf(goodRows, POLL.plusSeconds(15));
            await("gauges refreshed").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(Http.metric(uri, "durability_outbox_depth")).isEqualTo(3);
                assertThat(Http.metric(uri, "durability_outbox_rows_with_errors"))
                        .isEqualTo(3);
                assertThat(Http.metric(uri, "durability_outbox_unroutable_rows"))
                        .isEqualTo(1);
            });
            assertThat(Http.metric(uri, "durability_outbox_published_total")).isEqualTo(published + 10);
            assertThat(Http.metric(uri, "durability_outbox_unroutable_total")).isEqualTo(unroutable + 1);
            // Every failed attempt of the two refused rows and the unreadable one counts once: once each, or more where
            // a row's 1 s backoff ran out and a wake-up tried it again before this line. Read until the two agree, as
            // a retry may fall between the reads.
            await("each failed attempt counted once")
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        int attempts = failedAttempts(refused, good);
                        assertThat(attempts).isGreaterThanOrEqualTo(3);
                        assertThat(Http.metric(uri, "durability_outbox_publish_failures_total"))
                                .isEqualTo(failures + attempts);
                    });
            assertThat(Http.metric(uri, "durability_outbox_publish_lag_seconds_count"))
                    .isEqualTo(lagCount + 10);
            assertThat(Http.metric(uri, "durability_outbox_unpublished_beyond_grace"))
                    .isZero();
            assertThat(Http.metric(uri, "durability_outbox_lease_recoveries_total"))
                    .isZero();
            assertThat(Http.metric(uri, "durability_outbox_oldest_pending_age_seconds"))
                    .isPositive()
                    .isLessThan(120);
            assertThat(Http.secondsSince(uri, "durability_outbox_drain_last_tick_timestamp_seconds"))
                    .isLessThan(POLL.toSeconds() + 5);
        }
    }
}
