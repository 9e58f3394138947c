package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.durability.envelope.EventEnvelope;
import jakarta.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A server whose links can stall: its broker link can freeze (a relay that stops forwarding), and its
 * table can be locked. A publish round caught by the freeze gives up within its budget, well before the
 * lease, so no other worker re-publishes what it held; a claim stuck on a lock gives up at its statement
 * timeout and shows as a failing tick, not a hung one. Configured with an alternate exchange, so an
 * event no queue is bound for is kept by the broker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrozenBrokerIT {
    private static final String SCHEMA = "durability_frozen";
    private static final String EXCHANGE = "durability.events.frozen-it";
    private static final String ALTERNATE = "durability.unrouted.frozen-it";
    private static final int LEASE_SECONDS = 40;

    private final OutboxTable outbox = new OutboxTable(SCHEMA);
    private TcpProxy proxy;
    private LibertyServer server;

    @BeforeAll
    void startServer() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        proxy = new TcpProxy(Coordinates.brokerHost(), Coordinates.brokerPort());
        server = LibertyServer.copyOfMain(
                "durability-frozen",
                9194,
                Map.of(
                        "DB_SCHEMA",
                        SCHEMA,
                        "DURABILITY_INSTANCE_NAME",
                        "it-frozen",
                        "DURABILITY_BROKER_ADDRESSES",
                        "127.0.0.1:" + proxy.port(),
                        "DURABILITY_BROKER_EVENTS_EXCHANGE",
                        EXCHANGE,
                        "DURABILITY_BROKER_ALTERNATE_EXCHANGE",
                        ALTERNATE,
                        "DURABILITY_OUTBOX_LEASE_SECONDS",
                        Integer.toString(LEASE_SECONDS),
                        "DURABILITY_OUTBOX_CONFIRM_TIMEOUT_MS",
                        "3000",
                        "DURABILITY_OUTBOX_STATEMENT_TIMEOUT_MS",
                        "2000",
                        "DURABILITY_OUTBOX_STAMP_TIMEOUT_MS",
                        "3000"));
        server.start();
        server.awaitApplicationStarted();
    }

    @AfterAll
    void stopServer() throws Exception {
        server.close();
        proxy.close();
    }

    @BeforeEach
    void linkUp() throws Exception {
        proxy.resumeWithNewConnections();
        outbox.deleteAll();
    }

    private EventQueue queue(String eventType) throws Exception {
        return new EventQueue(EXCHANGE, Map.of("alternate-exchange", ALTERNATE), Map.of(), eventType);
    }

    @Test
    void aPublishRoundCaughtByAFrozenBrokerGivesUpBeforeTheLeaseAndNothingIsPublishedTwice() throws Exception {
        String eventType = "frozen.round_" + Long.toHexString(System.nanoTime());
        try (EventQueue queue = queue(eventType)) {
            List<EventEnvelope> warmUp = OutboxTable.envelopes(eventType, 1);
            outbox.seed(warmUp);
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.messages().size() == 1);
            double recoveries = Http.metric(server.uri(), "durability_outbox_lease_recoveries_total");

            // Frozen in the middle of the publish, after the link passed any probe: 16 MiB in one claim (its byte
            // bound), far more than the socket buffers hold, so the drain blocks writing; a few rows more stay
            // due, for a tick that overlapped the stuck one to claim.
            proxy.freezeAfterForwarding(2_000_000);
            String filler = "x".repeat(400_000);
            List<EventEnvelope> envelopes = new ArrayList<>();
            for (int i = 0; i < 45; i++) {
                envelopes.add(EventEnvelope.builder(eventType, "orders")
                        .payload(Json.createObjectBuilder()
                                .add("n", i)
                                .add("filler", filler)
                                .build())
                        .build());
            }
            outbox.seed(envelopes);
            await("rows claimed")
                    .atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> outbox.count(
                                    "event_type = ? AND claimed_by = 'it-frozen' AND claimed_at IS NOT NULL"
                                            + " AND published_at IS NULL",
                                    eventType)
                            > 0);
            long claimedAt = System.nanoTime();
            // The 1 s timer keeps firing while the round is stuck: ticks never overlap, so this server never
            // holds more than the two claims one tick pipelines.
            AtomicLong mostClaimsHeld = new AtomicLong();
            // Budget: two batches' statements, writes and confirms, probes, the connection drop and stamps: below 40 s.
            await("the round gave up and released its claim")
                    .atMost(Duration.ofSeconds(LEASE_SECONDS - 8))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        mostClaimsHeld.accumulateAndGet(outbox.claimsHeld(eventType), Math::max);
                        return outbox.count(
                                        "event_type = ? AND claimed_at IS NOT NULL AND published_at IS NULL", eventType)
                                == 0;
                    });
            assertThat(mostClaimsHeld).as("claims held at once by one server").hasValueLessThanOrEqualTo(2);
            assertThat(Duration.ofNanos(System.nanoTime() - claimedAt)).isLessThan(Duration.ofSeconds(LEASE_SECONDS));
            // What went through before the freeze may have been confirmed; the rest of the round was released
            // with an attempt and its error (rows beyond the claim's byte bound may still wait untouched).
            assertThat(outbox.count(
                            "event_type = ? AND published_at IS NULL AND attempts > 0 AND last_error IS NOT NULL",
                            eventType))
                    .isPositive();

            proxy.resumeWithNewConnections();
            await("all published after the link returns")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> outbox.count("event_type = ? AND published_at IS NULL", eventType) == 0);
            queue.awaitArrivalOf(envelopes, Duration.ofSeconds(15));
            Set<String> expected =
                    envelopes.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
            Thread.sleep(2_000); // a duplicate would arrive now
            List<String> arrived = queue.messages().stream()
                    .map(EventQueue.Message::id)
                    .filter(expected::contains)
                    .toList();
            assertThat(arrived).as("none published twice").hasSize(expected.size());
            assertThat(Http.metric(server.uri(), "durability_outbox_lease_recoveries_total"))
                    .isEqualTo(recoveries);
        }
    }

    @Test
    void withAnAlternateExchangeAnEventNoQueueIsBoundForIsKeptByTheBroker() throws Exception {
        String eventType = "frozen.unbound_" + Long.toHexString(System.nanoTime());
        purgeAlternateQueue();
        double unroutable = Http.metric(server.uri(), "durability_outbox_unroutable_total");
        List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, 3);
        outbox.seed(envelopes);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        outbox.count("event_type = ? AND published_at IS NOT NULL AND unroutable_at IS NULL", eventType)
                                == 3);
        Set<String> kept = new java.util.HashSet<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            kept.addAll(drainAlternateQueue());
            return kept.containsAll(
                    envelopes.stream().map(e -> e.id().toString()).toList());
        });
        assertThat(Http.metric(server.uri(), "durability_outbox_unroutable_total"))
                .isEqualTo(unroutable);
    }

    @Test
    void aClaimStuckOnALockGivesUpAtItsStatementTimeoutAndShowsAsAFailingTick() throws Exception {
        String eventType = "frozen.locked_" + Long.toHexString(System.nanoTime());
        double tickFailures = Http.metric(server.uri(), "durability_outbox_drain_tick_failures_total");
        try (EventQueue queue = queue(eventType);
                java.sql.Connection locker = OutboxTable.connect()) {
            List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, 5);
            outbox.seed(envelopes);
            // Plain reads (the status gauges) pass; the claim's SELECT ... FOR UPDATE waits for the lock.
            locker.setAutoCommit(false);
            try (java.sql.Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE " + SCHEMA + ".event_outbox IN EXCLUSIVE MODE");
            }
            try {
                // The statement timeout is 2 s and the timer fires every second: a hung drain would not end ticks.
                await("a claim gave up on the lock")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> Http.metric(server.uri(), "durability_outbox_drain_tick_failures_total")
                                > tickFailures);
                assertThat(Http.secondsSince(server.uri(), "durability_outbox_drain_last_tick_timestamp_seconds"))
                        .as("ticks keep ending while they fail")
                        .isLessThan(5);
                assertThat(queue.messages()).isEmpty();
            } finally {
                locker.rollback();
            }
            queue.awaitArrivalOf(envelopes, Duration.ofSeconds(30));
        }
        assertThat(server.messagesLog()).contains("canceling statement due to statement timeout");
    }

    private static Connection connect() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(Coordinates.brokerHost());
        factory.setPort(Coordinates.brokerPort());
        factory.setUsername(Coordinates.brokerUser());
        factory.setPassword(Coordinates.brokerPassword());
        return factory.newConnection("system-test alternate exchange");
    }

    private void purgeAlternateQueue() throws Exception {
        try (Connection connection = connect();
                Channel channel = connection.createChannel()) {
            channel.queueDeclare(ALTERNATE, true, false, false, null);
            channel.queuePurge(ALTERNATE);
        }
    }

    private List<String> drainAlternateQueue() throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection connection = connect();
                Channel channel = connection.createChannel()) {
            for (GetResponse message; (message = channel.basicGet(ALTERNATE, true)) != null; ) {
                ids.add(message.getProps().getMessageId());
            }
        }
        return ids;
    }
}
