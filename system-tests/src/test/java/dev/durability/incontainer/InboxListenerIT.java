package dev.durability.incontainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.inbox.InboxConsumer;
import dev.durability.inbox.PermanentFailure;
import dev.durability.inbox.boundary.InboxListener;
import dev.durability.inbox.boundary.InboxTransactions;
import dev.durability.inbox.control.ConfirmedSend;
import dev.durability.inbox.control.ConsumerDeclaration;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.inbox.control.InboxMetrics;
import dev.durability.inbox.control.QueueTopology;
import dev.durability.inbox.control.RetryPolicy;
import dev.durability.outbox.control.ConfirmedPublisher;
import dev.durability.tracing.control.MessagingSpans;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.annotation.Resource;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The inbox listener and its transactions inside the container, against the real broker and database,
 * with handlers that fail on purpose: effects happen once, failures are retried through the delay
 * queues with their backoff and then dead-lettered (audited by the deployed EAR's dead-letter consumer),
 * on classic and quorum queues alike. The test opens the channels the supervisor would.
 */
@ExtendWith(ArquillianExtension.class)
class InboxListenerIT {

    @Deployment
    static WebArchive deployment() {
        return LibraryDeployment.createWithInbox(
                "inbox-listener-it", InboxListenerIT.class, HandlerEffects.class, ScriptedHandler.class);
    }

    @Resource(lookup = LibraryDeployment.DATA_SOURCE)
    DataSource dataSource;

    @Inject
    HandlerEffects effects;

    @Inject
    InboxTransactions transactions;

    @Inject
    QueueTopology topology;

    @Inject
    BrokerConnection broker;

    @Inject
    BrokerConfig brokerConfig;

    @Inject
    InboxConfig config;

    @Inject
    InboxMetrics metrics;

    /**
     * The schema of the shared server's application, whose dead-letter consumer audits what these tests
     * dead-letter (DB_SCHEMA of the server's server.env); this WAR's own tables are in LibraryDeployment.SCHEMA.
     */
    private static final String SERVER_SCHEMA = System.getenv().getOrDefault("DB_SCHEMA", "durability");

    @Inject
    MetricRegistry registry;

    @Inject
    BeanManager beans;

    private final List<Connection> connections = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();

    @BeforeEach
    void freshTables() throws Exception {
        LibraryDeployment.freshOutbox(dataSource);
        try (java.sql.Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + HandlerEffects.TABLE
                    + " (consumer text NOT NULL, envelope_id uuid " + "NOT NULL)");
            s.execute("DELETE FROM " + HandlerEffects.TABLE);
            s.execute("DELETE FROM " + LibraryDeployment.SCHEMA + ".event_inbox");
        }
    }

    @AfterEach
    void deleteQueues() throws Exception {
        try (Channel channel = broker.openChannel()) {
            for (String queue : queues) {
                channel.queueDelete(queue);
            }
        }
        for (Connection connection : connections) {
            connection.abort();
        }
    }

    /**
     * A delivery's transaction bounds how long it may sit idle and how long it waits for another delivery's lock on
     * the same envelope: a server lost without closing its connection (host gone, frozen JVM) holds an envelope's
     * inbox row no longer than that, instead of until the operating system's keepalive gives up hours later.
     */
    @Test
    void aDeliverysTransactionBoundsItsIdleTimeAndItsWaitsForLocks() throws Exception {
        EventEnvelope envelope = EventEnvelope.builder("inbox.bounded", "inbox-it-producer")
                .aggregateId(UUID.randomUUID())
                .payload(Json.createObjectBuilder().build())
                .build();
        List<String> during = new ArrayList<>();
        String queue = "inbox-it.bounded." + UUID.randomUUID();

        InboxTransactions.Processing processing =
                transactions.process(queue, envelope, event -> during.addAll(sessionBounds()));

        String bound = Long.toString(config.deadSession().toMillis());
        assertThat(processing.result()).isEqualTo(InboxTransactions.Processing.Result.PROCESSED);
        assertThat(during)
                .as("idle_in_transaction_session_timeout and lock_timeout, as the handler's transaction sees them")
                .containsExactly(bound, bound);
        assertThat(sessionBounds())
                .as("set for the delivery's transaction only")
                .doesNotContain(bound);
        assertThat(processed(queue, envelope.id())).isTrue();
    }

    @Test
    void handlerFailingTwiceThenSucceedingHasOneEffectOnAClassicQueue() throws Exception {
        failingTwiceThenSucceeding(InboxConsumer.QueueType.CLASSIC);
    }

    @Test
    void handlerFailingTwiceThenSucceedingHasOneEffectOnAQuorumQueue() throws Exception {
        failingTwiceThenSucceeding(InboxConsumer.QueueType.QUORUM);
    }

    private void failingTwiceThenSucceeding(InboxConsumer.QueueType type) throws Exception {
        ConsumerDeclaration consumer = declaration("twice", type, 0);
        ScriptedHandler handler = new ScriptedHandler(consumer.queue(), effects, 2, false, () -> {});
        consume(consumer, handler, new AtomicInteger());
        EventEnvelope event = publish(consumer);

        await().atMost(Duration.ofSeconds(30)).until(() -> processed(consumer.queue(), event.id()));
        assertThat(effectCount(consumer.queue(), event.id())).isEqualTo(1);
        assertThat(attempts(consumer.queue(), event.id())).isEqualTo(3);
        assertThat(counter("durability_inbox_retries", consumer.queue())).isEqualTo(2);
        assertThat(counter("durability_inbox_processed", consumer.queue())).isEqualTo(1);
        List<Instant> calls = handler.callTimes();
        assertThat(calls).hasSize(3);
        RetryPolicy policy = config.retryPolicy(consumer);
        // Each retry waited in its delay queue for at least its backoff (timer granularity aside).
        assertThat(Duration.between(calls.get(0), calls.get(1)))
                .isGreaterThanOrEqualTo(policy.delayAfter(1).minusMillis(50));
        assertThat(Duration.between(calls.get(1), calls.get(2)))
                .isGreaterThanOrEqualTo(policy.delayAfter(2).minusMillis(50));
        assertThat(queueDepth(consumer.queue())).isZero();
    }

    @Test
    void retryCapReachedDeadLettersOnceWithTheApplicationTokenOnAClassicQueue() throws Exception {
        retryCapReached(InboxConsumer.QueueType.CLASSIC);
    }

    @Test
    void retryCapReachedDeadLettersOnceWithTheApplicationTokenOnAQuorumQueue() throws Exception {
        retryCapReached(InboxConsumer.QueueType.QUORUM);
    }

    private void retryCapReached(InboxConsumer.QueueType type) throws Exception {
        ConsumerDeclaration consumer = declaration("cap", type, 2);
        ScriptedHandler handler = new ScriptedHandler(consumer.queue(), effects, Integer.MAX_VALUE, false, () -> {});
        consume(consumer, handler, new AtomicInteger());
        EventEnvelope event = publish(consumer);

        await().atMost(Duration.ofSeconds(30)).until(() -> auditRows(event.id()).size() == 1);
        Thread.sleep(1_000); // a second dead letter or another attempt would show now
        List<String> rows = auditRows(event.id());
        assertThat(rows).hasSize(1);
        long receivedMicros = receivedMicros(consumer.queue(), event.id());
        assertThat(rows.get(0))
                .isEqualTo("application|" + consumer.queue() + "|dlxcap:" + event.id() + ":" + consumer.queue() + ":"
                        + receivedMicros);
        assertThat(handler.callTimes()).hasSize(2);
        assertThat(effectCount(consumer.queue(), event.id())).isZero();
        assertThat(attempts(consumer.queue(), event.id())).isEqualTo(2);
        assertThat(counter("durability_inbox_dead_lettered", consumer.queue())).isEqualTo(1);
        // The original was acked: nothing waits in the queue, nothing comes back when the channel closes.
        closeConsumers();
        assertThat(queueDepth(consumer.queue())).isZero();
    }

    @Test
    void aPermanentFailureSkipsTheRetriesOnAQuorumQueue() throws Exception {
        ConsumerDeclaration consumer = declaration("permanent", InboxConsumer.QueueType.QUORUM, 5);
        ScriptedHandler handler = new ScriptedHandler(consumer.queue(), effects, Integer.MAX_VALUE, true, () -> {});
        consume(consumer, handler, new AtomicInteger());
        EventEnvelope event = publish(consumer);

        await().atMost(Duration.ofSeconds(30)).until(() -> auditRows(event.id()).size() == 1);
        assertThat(handler.callTimes()).hasSize(1);
        assertThat(attempts(consumer.queue(), event.id())).isEqualTo(1);
        assertThat(counter("durability_inbox_retries", consumer.queue())).isZero();
    }

    /**
     * The inbox is partitioned by its envelope ids' day (docs/decisions/0094-inbox-partitioned-by-day.md): a copy of
     * an envelope arriving a day after the first finds the first's row, in the partition its id names whatever day
     * either copy came on, and is a duplicate. The envelope's id is of a day ten days ahead, whose partition the test
     * makes as retention would; the first copy's reception is then moved a day back.
     */
    @Test
    void aCopyArrivingADayAfterTheFirstIsStillADuplicate() throws Exception {
        ConsumerDeclaration consumer = declaration("day_later", InboxConsumer.QueueType.CLASSIC, 0);
        consume(consumer, ScriptedHandler.succeeding(consumer.queue(), effects), new AtomicInteger());
        Instant idDay = Instant.now().plus(Duration.ofDays(10));
        query(
                "SELECT " + LibraryDeployment.SCHEMA + ".durability_make_day_partitions('event_inbox',"
                        + " CAST(? AS timestamptz))",
                idDay.toString());
        UUID id = UUID.fromString(query(
                "SELECT CAST(" + LibraryDeployment.SCHEMA + ".durability_uuid7_at(CAST(? AS timestamptz)) AS text)",
                idDay.toString()));
        EventEnvelope built = EventEnvelope.builder(consumer.eventTypes().get(0), "inbox-it-producer")
                .payload(Json.createObjectBuilder().add("n", 1).build())
                .build();
        EventEnvelope event = new EventEnvelope(
                id,
                built.eventType(),
                built.sourceService(),
                built.aggregateId(),
                built.occurredAt(),
                built.schemaVersion(),
                built.correlationId(),
                built.causationId(),
                built.payload());
        publish(consumer, event);
        await().atMost(Duration.ofSeconds(30)).until(() -> processed(consumer.queue(), id));
        assertThat(query(
                        "SELECT CAST(tableoid::regclass AS text) FROM " + LibraryDeployment.SCHEMA
                                + ".event_inbox WHERE consumer_queue = ? AND envelope_id = ?",
                        consumer.queue(),
                        id))
                .as("the row is in the partition of its id's day")
                .endsWith(".event_inbox_"
                        + java.time.format.DateTimeFormatter.BASIC_ISO_DATE.format(
                                idDay.atOffset(java.time.ZoneOffset.UTC).toLocalDate()));
        query(
                "UPDATE " + LibraryDeployment.SCHEMA + ".event_inbox SET received_at = received_at - interval '1 day'"
                        + " WHERE consumer_queue = ? AND envelope_id = ? RETURNING 1",
                consumer.queue(),
                id);
        long firstReceived = receivedMicros(consumer.queue(), id);

        publish(consumer, event);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> counter("durability_inbox_dedup_hits", consumer.queue()) == 1);
        assertThat(effectCount(consumer.queue(), id)).as("the handler ran once").isEqualTo(1);
        assertThat(receivedMicros(consumer.queue(), id))
                .as("the first copy's row, untouched")
                .isEqualTo(firstReceived);
        assertThat(Long.parseLong(query(
                        "SELECT count(*) FROM " + LibraryDeployment.SCHEMA + ".event_inbox WHERE envelope_id = ?", id)))
                .isEqualTo(1);
    }

    @Test
    void theSameEnvelopeDeadLetteredAgainAfterAReplayIsANewOccurrence() throws Exception {
        ConsumerDeclaration consumer = declaration("replayed", InboxConsumer.QueueType.CLASSIC, 1);
        ScriptedHandler handler = new ScriptedHandler(consumer.queue(), effects, Integer.MAX_VALUE, false, () -> {});
        consume(consumer, handler, new AtomicInteger());
        EventEnvelope event = publish(consumer);
        await().atMost(Duration.ofSeconds(30)).until(() -> auditRows(event.id()).size() == 1);

        // Another copy of the same publication (a re-publish after a lost confirm): the same occurrence.
        publish(consumer, event, 0);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> counter("durability_inbox_dead_lettered", consumer.queue()) == 2);
        Thread.sleep(1_000); // the audit's dedup of the re-surfaced dead letter
        assertThat(auditRows(event.id())).hasSize(1);
        assertThat(handler.callTimes()).hasSize(1);

        publish(consumer, event, 1); // a replay: the row's next publication
        await().atMost(Duration.ofSeconds(30)).until(() -> auditRows(event.id()).size() == 2);
        List<String> rows = auditRows(event.id());
        assertThat(rows.get(0)).isNotEqualTo(rows.get(1));
        assertThat(rows.get(1))
                .isEqualTo("application|" + consumer.queue() + "|dlxcap:" + event.id() + ":" + consumer.queue() + ":"
                        + receivedMicros(consumer.queue(), event.id()));
        assertThat(attempts(consumer.queue(), event.id())).isEqualTo(1);
        assertThat(handler.callTimes()).hasSize(2);
    }

    @Test
    void aQuorumQueueDeadLettersByTheBrokerAtItsDeliveryLimit() throws Exception {
        ConsumerDeclaration consumer = declaration("limit", InboxConsumer.QueueType.QUORUM, 0);
        try (Channel channel = broker.openChannel()) {
            topology.declareConsumer(channel, consumer);
            queues.add(consumer.queue());
            EventEnvelope event = publish(consumer);
            // A consumer whose channel is lost while it holds the message, again and again, as in production (a
            // crash, a failed ack, a broken link): the broker takes the message back and counts the delivery,
            // until it gives up at the limit. No nack: a consumer that could nack would not have lost it.
            Connection consuming = broker.openConsumerConnection("inbox-it delivery limit");
            connections.add(consuming);
            for (int i = 0;
                    i <= config.quorumDeliveryLimit() && auditRows(event.id()).isEmpty();
                    i++) {
                Channel lost = consuming.createChannel();
                com.rabbitmq.client.GetResponse taken = null;
                for (int tries = 0; taken == null && tries < 100; tries++) {
                    taken = lost.basicGet(consumer.queue(), false);
                    if (taken == null) {
                        Thread.sleep(20);
                    }
                }
                lost.abort();
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> auditRows(event.id()).size() == 1);
            assertThat(auditRows(event.id()).get(0))
                    .startsWith("broker|" + consumer.queue() + "|xdeath:" + event.id() + ":" + consumer.queue()
                            + ":delivery_limit:1:");
            assertThat(queueDepth(consumer.queue())).isZero();
        }
    }

    @Test
    void oneEnvelopeToTwoConsumersOnOneDatabaseIsProcessedByBoth() throws Exception {
        String eventType = "inbox_it.fanout_" + Long.toHexString(System.nanoTime());
        ConsumerDeclaration first = declaration("fan-a", InboxConsumer.QueueType.CLASSIC, 0, eventType);
        ConsumerDeclaration second = declaration("fan-b", InboxConsumer.QueueType.CLASSIC, 0, eventType);
        consume(first, ScriptedHandler.succeeding(first.queue(), effects), new AtomicInteger());
        consume(second, ScriptedHandler.succeeding(second.queue(), effects), new AtomicInteger());
        EventEnvelope event = publish(first);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> processed(first.queue(), event.id()) && processed(second.queue(), event.id()));
        assertThat(effectCount(first.queue(), event.id())).isEqualTo(1);
        assertThat(effectCount(second.queue(), event.id())).isEqualTo(1);
    }

    @Test
    void aFailedAckRebuildsTheChannelAndConsumptionGoesOnAHundredTimesInARow() throws Exception {
        ConsumerDeclaration consumer = declaration("ack", InboxConsumer.QueueType.CLASSIC, 0);
        AtomicReference<Channel> current = new AtomicReference<>();
        // Every handler call drops the channel under the listener: the delivery commits, its ack fails.
        AtomicInteger reopened = new AtomicInteger();
        ScriptedHandler handler = new ScriptedHandler(consumer.queue(), effects, 0, false, () -> {
            try {
                current.get().abort();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Connection connection = broker.openConsumerConnection("inbox-it ack");
        connections.add(connection);
        Runnable[] open = new Runnable[1];
        open[0] = () -> {
            try {
                Channel channel = connection.createChannel();
                channel.basicQos(1);
                current.set(channel);
                channel.basicConsume(consumer.queue(), false, listener(channel, consumer, handler, () -> {}, () -> {
                    reopened.incrementAndGet();
                    open[0].run();
                }));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        try (Channel declaring = connection.createChannel()) {
            topology.declareConsumer(declaring, consumer);
        }
        queues.add(consumer.queue());
        List<EventEnvelope> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            events.add(publish(consumer));
        }
        open[0].run();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> processedCount(consumer.queue()) == 100 && queueDepth(consumer.queue()) == 0);
        assertThat(reopened.get()).isGreaterThanOrEqualTo(100);
        for (EventEnvelope event : events) {
            assertThat(effectCount(consumer.queue(), event.id()))
                    .as("effect of %s", event.id())
                    .isEqualTo(1);
        }
        assertThat(counter("durability_inbox_dedup_hits", consumer.queue())).isGreaterThanOrEqualTo(100);
    }

    private ConsumerDeclaration declaration(String name, InboxConsumer.QueueType type, int maxAttempts) {
        return declaration(name, type, maxAttempts, "inbox_it." + name + "_" + Long.toHexString(System.nanoTime()));
    }

    private ConsumerDeclaration declaration(
            String name, InboxConsumer.QueueType type, int maxAttempts, String eventType) {
        String queue = "inbox-it." + name + "." + Long.toHexString(System.nanoTime());
        return new ConsumerDeclaration(
                queue,
                List.of(eventType),
                0,
                0,
                maxAttempts,
                type,
                List.of(PermanentFailure.class),
                beans.resolve(beans.getBeans(HandlerEffects.class)));
    }

    private void consume(ConsumerDeclaration consumer, ScriptedHandler handler, AtomicInteger pauses) throws Exception {
        Connection connection = broker.openConsumerConnection("inbox-it " + consumer.queue());
        connections.add(connection);
        Channel channel = connection.createChannel();
        topology.declareConsumer(channel, consumer);
        queues.add(consumer.queue());
        RetryPolicy policy = config.retryPolicy(consumer);
        for (int attempt = 1; attempt < policy.maxAttempts(); attempt++) {
            queues.add(RetryPolicy.delayQueue(consumer.queue(), policy.delayAfter(attempt)));
        }
        channel.basicQos(config.prefetch(consumer));
        channel.basicConsume(
                consumer.queue(), false, listener(channel, consumer, handler, pauses::incrementAndGet, () -> {}));
    }

    private InboxListener listener(
            Channel channel, ConsumerDeclaration consumer, ScriptedHandler handler, Runnable pause, Runnable reopen) {
        return new InboxListener(
                channel,
                consumer,
                handler,
                config.retryPolicy(consumer),
                transactions,
                new ConfirmedSend(broker, config.sendTimeout()),
                metrics,
                brokerConfig.deadLetterExchange(),
                "inbox-it",
                pause,
                reopen,
                brokerConfig.maxMessageBytes(),
                MessagingSpans.of(OpenTelemetry.noop()));
    }

    private void closeConsumers() {
        for (Connection connection : connections) {
            connection.abort();
        }
        connections.clear();
    }

    private EventEnvelope publish(ConsumerDeclaration consumer) throws Exception {
        return publish(
                consumer,
                EventEnvelope.builder(consumer.eventTypes().get(0), "inbox-it-producer")
                        .payload(Json.createObjectBuilder().add("n", 1).build())
                        .build());
    }

    private EventEnvelope publish(ConsumerDeclaration consumer, EventEnvelope event) throws Exception {
        return publish(consumer, event, 0);
    }

    private EventEnvelope publish(ConsumerDeclaration consumer, EventEnvelope event, int publication) throws Exception {
        try (Channel channel = broker.openChannel()) {
            channel.confirmSelect();
            channel.basicPublish(
                    brokerConfig.eventsExchange(),
                    event.eventType(),
                    true,
                    new AMQP.BasicProperties.Builder()
                            .deliveryMode(2)
                            .messageId(event.id().toString())
                            .type(event.eventType())
                            // the outbox row's generation, as the drain sends it: a replay increments it
                            .headers(java.util.Map.of(ConfirmedPublisher.PUBLICATION_HEADER, publication))
                            .build(),
                    EnvelopeJson.write(event).getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(10_000);
        }
        return event;
    }

    private long queueDepth(String queue) throws Exception {
        try (Channel channel = broker.openChannel()) {
            return channel.queueDeclarePassive(queue).getMessageCount();
        }
    }

    /** The queue's counter of that name, whatever other tags (mp_app) the registry adds. */
    private long counter(String name, String queue) {
        return registry
                .getCounters((id, metric) ->
                        id.getName().equals(name) && queue.equals(id.getTags().get("queue")))
                .values()
                .stream()
                .mapToLong(org.eclipse.microprofile.metrics.Counter::getCount)
                .sum();
    }

    private boolean processed(String queue, UUID envelopeId) throws Exception {
        return query(
                        "SELECT processed_at IS NOT NULL FROM " + LibraryDeployment.SCHEMA + ".event_inbox WHERE "
                                + "consumer_queue = ? AND envelope_id = ?",
                        queue,
                        envelopeId)
                .equals("t");
    }

    private long processedCount(String queue) throws Exception {
        return Long.parseLong(query(
                "SELECT count(*) FROM " + LibraryDeployment.SCHEMA + ".event_inbox WHERE "
                        + "consumer_queue = ? AND processed_at IS NOT NULL",
                queue));
    }

    private int attempts(String queue, UUID envelopeId) throws Exception {
        return Integer.parseInt(query(
                "SELECT attempts FROM " + LibraryDeployment.SCHEMA + ".event_inbox WHERE "
                        + "consumer_queue = ? AND envelope_id = ?",
                queue,
                envelopeId));
    }

    private long receivedMicros(String queue, UUID envelopeId) throws Exception {
        return Long.parseLong(query(
                "SELECT CAST(EXTRACT(EPOCH FROM received_at) * 1000000 AS bigint) FROM " + LibraryDeployment.SCHEMA
                        + ".event_inbox WHERE consumer_queue = ? AND envelope_id = ?",
                queue,
                envelopeId));
    }

    private long effectCount(String consumer, UUID envelopeId) throws Exception {
        return Long.parseLong(query(
                "SELECT count(*) FROM " + HandlerEffects.TABLE + " WHERE consumer = ? AND envelope_id = ?",
                consumer,
                envelopeId));
    }

    /** The deployed EAR's audit rows for this envelope, as "path|queue|token". */
    private List<String> auditRows(UUID envelopeId) throws Exception {
        List<String> rows = new ArrayList<>();
        try (java.sql.Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT path || '|' || original_queue || '|' || "
                        + "coalesce(occurrence_token, '') FROM " + SERVER_SCHEMA + ".dead_letter_audit WHERE "
                        + "envelope_id = ? ORDER BY id")) {
            s.setObject(1, envelopeId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
        }
        return rows;
    }

    /** idle_in_transaction_session_timeout and lock_timeout in ms, as the connection in use sees them. */
    private List<String> sessionBounds() throws Exception {
        try (java.sql.Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT setting FROM pg_settings"
                        + " WHERE name IN ('idle_in_transaction_session_timeout', 'lock_timeout') ORDER BY name")) {
            List<String> settings = new ArrayList<>();
            while (rs.next()) {
                settings.add(rs.getString(1));
            }
            return settings;
        }
    }

    private String query(String sql, Object... parameters) throws Exception {
        try (java.sql.Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : "";
            }
        }
    }
}
