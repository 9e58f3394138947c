package dev.durability.outbox.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.MessageProperties;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.envelope.control.CloudEventJson;
import dev.durability.envelope.control.EnvelopeHeaders;
import dev.durability.outbox.entity.ClaimedRow;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes claimed batches to the events exchange with publisher confirms, awaited once per batch
 * and judged per message ({@link PublisherConfirms}). Messages are {@code mandatory}, so one no queue
 * is bound for comes back as a return before its ack and is reported unroutable, never as a delivery.
 * The stored envelope text is sent as it is; only the header fields are read from it, by a streaming
 * parser, so no tree of a payload is ever built.
 *
 * <p>The drain calls {@link #prepare()} before it claims: connecting, opening the confirm channel and
 * finding out whether the broker blocks publishers happen while no row is claimed. A publish round
 * (writes and confirms) shares one deadline, {@code durability.outbox.confirm-timeout-ms}; a round
 * still writing at its deadline (a broker or network that stopped reading) has its connection
 * dropped, which frees the blocked write.
 */
@ApplicationScoped
public class ConfirmedPublisher {
    /** The header naming the publish round a message came from (see {@link #properties}). */
    public static final String PUBLICATION_HEADER = "x-durability-publication";

    private static final Logger LOG = Logger.getLogger(ConfirmedPublisher.class.getName());

    /** A routing key no queue is bound to on the default exchange: the probe is confirmed and dropped. */
    static final String PROBE_ROUTING_KEY = "durability.outbox.blocked-probe";

    @Inject
    BrokerConnection broker;

    @Inject
    BrokerConfig brokerConfig;

    @Inject
    OutboxConfig config;

    @Inject
    MessagingSpans spans;

    @Resource
    ManagedScheduledExecutorService scheduler;

    /**
     * The confirm channel, kept across batches while every message on it was settled. Only the drain
     * uses it, one tick at a time (ticks never overlap), so it needs no lock.
     */
    private Channel channel;

    /** Batches sent and not yet settled, by the channel they went out on (at most two: docs/decisions/0041). */
    private final Map<Channel, Integer> unsettled = new IdentityHashMap<>();

    /**
     * A channel given up on after a nack while another batch was still in flight on it: no new batch goes out on
     * it, and it is closed once that batch is settled, so that batch keeps its own confirms.
     */
    private Channel retiring;

    /** When the broker last confirmed anything on this server's confirm channel (monotonic clock). */
    private long lastConfirmNanos = System.nanoTime() - IDLE_BEFORE_PROBE_NANOS;

    /**
     * A channel that has confirmed nothing for this long may have missed an alarm: RabbitMQ announces a
     * block only to a connection that publishes while it lasts.
     */
    static final long IDLE_BEFORE_PROBE_NANOS = 1_000_000_000L;

    /**
     * Makes sure a confirm channel is open and the broker takes publishes, connecting if needed. A new
     * channel, or one after a block the broker announced, is first probed with one empty message to a
     * queue that does not exist: a blocking broker blocks the connection on it (and says so) instead of
     * on a claimed batch.
     */
    public BrokerReadiness prepare() {
        Optional<String> blocked = broker.blockedReason();
        if (blocked.isPresent()) {
            return BrokerReadiness.blocked(blocked.get());
        }
        boolean fresh = channel == null || !channel.isOpen();
        try {
            if (fresh) {
                channel = openConfirmChannel();
            }
            if (fresh || broker.unresolvedBlock().isPresent()) {
                return probe();
            }
            return BrokerReadiness.ready();
        } catch (IOException | TimeoutException | RuntimeException e) {
            dropChannel();
            return BrokerReadiness.unreachable(describe(e));
        }
    }

    private Channel openConfirmChannel() throws IOException, TimeoutException {
        Channel opened = broker.openChannel();
        try {
            opened.confirmSelect();
            // Declared again on every new channel: an exchange deleted under a live connection comes back.
            broker.declareTopology(opened);
            return opened;
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened);
            throw e;
        }
    }

    /**
     * Before publishing a claim on a channel that has been idle: probes, so a broker alarm raised while
     * it was idle is found before the batch is sent rather than by its confirm timeout.
     */
    public BrokerReadiness readyAfterIdle() {
        if (channel == null || !channel.isOpen()) {
            return BrokerReadiness.unreachable("the confirm channel closed");
        }
        if (System.nanoTime() - lastConfirmNanos < IDLE_BEFORE_PROBE_NANOS) {
            return BrokerReadiness.ready();
        }
        try {
            return probe();
        } catch (IOException | RuntimeException e) {
            dropChannel();
            return BrokerReadiness.unreachable(describe(e));
        }
    }

    private BrokerReadiness probe() throws IOException {
        // Its own confirm bookkeeping: the channel's waitForConfirms would also report nacks of earlier batches.
        PublisherConfirms confirms = new PublisherConfirms();
        UUID probe = UUID.randomUUID();
        Channel probing = channel;
        probing.addConfirmListener(confirms);
        ShutdownListener closed = confirms::closed;
        probing.addShutdownListener(closed);
        try {
            confirms.sending(probing.getNextPublishSeqNo(), probe);
            probing.basicPublish("", PROBE_ROUTING_KEY, false, MessageProperties.MINIMAL_BASIC, new byte[0]);
            confirms.await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(brokerConfig.connectTimeoutMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            dropChannel();
            return BrokerReadiness.unreachable("interrupted while probing the broker");
        } finally {
            probing.removeConfirmListener(confirms);
            probing.removeShutdownListener(closed);
        }
        PublishOutcome outcome = confirms.outcomes(List.of(probe)).get(probe);
        if (outcome.result() == PublishOutcome.Result.CONFIRMED) {
            lastConfirmNanos = System.nanoTime();
            broker.publishConfirmed();
            // The broker confirms the publish that made it block the connection, then announces the block.
            return broker.blockedReason().map(BrokerReadiness::blocked).orElseGet(BrokerReadiness::ready);
        }
        if (!confirms.timedOut()) {
            dropChannel();
            return BrokerReadiness.unreachable("probe message not confirmed: " + outcome.detail());
        }
        Optional<String> blocked = broker.blockedReason();
        if (blocked.isEmpty()) {
            // Not blocked, yet silent: wedged or half-open. Reconnect on the next tick.
            channel = null;
            broker.abort();
            return BrokerReadiness.unreachable(
                    "no confirm of a probe message within " + brokerConfig.connectTimeoutMillis() + " ms");
        }
        // Blocked: keep the connection, which the broker tells when the alarm is over, but not the channel,
        // whose late confirm would be misread.
        abandonChannel();
        return BrokerReadiness.blocked(blocked.get());
    }

    /**
     * A claimed batch handed to the broker: its messages written, their confirms possibly still on the
     * way. {@link #settle} waits for them; until then the next batch may be claimed and sent on the same
     * channel, whose confirms each batch's own bookkeeping tells apart by sequence number.
     */
    public static final class Sent {
        private final Claim claim;
        private final Map<UUID, PublishOutcome> decided;
        private final PublisherConfirms confirms;
        private final Channel channel;
        private final List<UUID> ids;
        private final long deadline;
        private final ReturnListener returns;
        private final ShutdownListener closed;
        /** The publish span of each traced message written, ended when the batch is settled. */
        private final Map<UUID, Span> publishSpans;

        private Sent(
                Claim claim,
                Map<UUID, PublishOutcome> decided,
                PublisherConfirms confirms,
                Channel channel,
                List<UUID> ids,
                long deadline,
                ReturnListener returns,
                ShutdownListener closed,
                Map<UUID, Span> publishSpans) {
            this.claim = claim;
            this.decided = decided;
            this.confirms = confirms;
            this.channel = channel;
            this.ids = ids;
            this.deadline = deadline;
            this.returns = returns;
            this.closed = closed;
            this.publishSpans = publishSpans;
        }

        public Claim claim() {
            return claim;
        }

        /** Whether messages of it went to the broker's channel, so that its confirms are awaited. */
        public boolean written() {
            return !ids.isEmpty();
        }
    }

    /** Every row of a claim the broker could not take: handed back when it blocks, failed when unreachable. */
    public static Sent unsent(Claim claim, BrokerReadiness broker) {
        PublishOutcome.Result result = broker.blocked() ? PublishOutcome.Result.HELD : PublishOutcome.Result.FAILED;
        String why = broker.problem().orElse("broker not ready");
        Map<UUID, PublishOutcome> decided = new LinkedHashMap<>();
        claim.rows().forEach(row -> decided.put(row.id(), new PublishOutcome(row.id(), result, why)));
        return new Sent(claim, decided, null, null, List.of(), 0, null, null, Map.of());
    }

    /**
     * Writes a claim's messages to the confirm channel and returns without waiting for their confirms.
     * Never throws: a broker fault fails the affected messages when the batch is settled.
     */
    public Sent send(Claim claim) {
        Map<UUID, PublishOutcome> decided = new LinkedHashMap<>();
        // Every message is built before the first is written, so a row whose data cannot become a message fails
        // alone (rejected, with its backoff and error) instead of stopping the batch as a link failure would and
        // dropping the channel another batch is in flight on (docs/decisions/0014-drain-loop-rules.md).
        List<Message> sendable = new ArrayList<>(claim.size());
        OutboxConfig.EnvelopeFormat format = config.envelopeFormat();
        for (ClaimedRow row : claim.rows()) {
            try {
                sendable.add(Message.of(row, format, brokerConfig.eventsExchange(), spans));
            } catch (InvalidEnvelopeException e) {
                // Only rows written around OutboxStager can get here; retrying would never help, but the row
                // must stay visible (pending, with its error) for an operator rather than vanish.
                decided.put(row.id(), PublishOutcome.rejected(row.id(), "invalid envelope: " + e.getMessage()));
            } catch (RuntimeException e) {
                decided.put(row.id(), PublishOutcome.rejected(row.id(), "unpublishable envelope: " + describe(e)));
            }
        }
        List<UUID> ids = sendable.stream().map(Message::id).toList();
        Map<UUID, Span> publishSpans = new HashMap<>();
        sendable.stream().filter(m -> m.span() != null).forEach(m -> publishSpans.put(m.id(), m.span()));
        PublisherConfirms confirms = new PublisherConfirms();
        Channel confirming = channel;
        if (ids.isEmpty() || confirming == null || !confirming.isOpen()) {
            confirms.failUnsent(ids, "broker unreachable: the confirm channel closed before the batch was sent");
            decided.putAll(confirms.outcomes(ids));
            endSpans(publishSpans, decided);
            return new Sent(claim, decided, null, null, List.of(), 0, null, null, Map.of());
        }
        long deadline = System.nanoTime() + config.confirmTimeout().toNanos();
        // A write into a socket the peer stopped reading blocks without any timeout of its own.
        ScheduledFuture<?> watchdog = scheduler.schedule(
                () -> {
                    LOG.warning("Publish round still writing after "
                            + config.confirmTimeout().toMillis() + " ms: dropping the broker connection");
                    broker.abort();
                },
                config.confirmTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        unsettled.merge(confirming, 1, Integer::sum);
        ReturnListener returns = confirming.addReturnListener(confirms::returned);
        confirming.addConfirmListener(confirms);
        ShutdownListener closed = confirms::closed;
        confirming.addShutdownListener(closed);
        int sent = 0;
        try {
            for (Message message : sendable) {
                Optional<String> blocked = broker.blockedReason();
                if (blocked.isPresent()) {
                    // The broker stopped reading: writing more would only block this thread, and what was not
                    // sent is handed back untried.
                    confirms.holdUnsent(ids.subList(sent, ids.size()), "broker blocked publishing: " + blocked.get());
                    break;
                }
                long sequence = confirming.getNextPublishSeqNo();
                confirms.sending(sequence, message.id());
                try {
                    confirming.basicPublish(
                            brokerConfig.eventsExchange(),
                            message.routingKey(),
                            true,
                            message.properties(),
                            message.body());
                } catch (IOException | RuntimeException e) {
                    if (confirming.getNextPublishSeqNo() == sequence) {
                        confirms.notSent(sequence); // refused before it took a sequence number
                    }
                    throw e;
                }
                sent++;
            }
        } catch (IOException | RuntimeException e) {
            // Stop sending, but what was already sent still gets its own confirm: failing it here would publish
            // it twice on the retry.
            confirms.failUnsent(ids.subList(sent, ids.size()), "not sent: " + describe(e));
        } finally {
            // The writes are done: from here on the confirm deadline, checked when the batch is settled, covers
            // a broker that went silent.
            watchdog.cancel(false);
        }
        return new Sent(claim, decided, confirms, confirming, ids, deadline, returns, closed, publishSpans);
    }

    /**
     * One row as the message it becomes, built before anything of its batch is written. The body of the envelope's
     * own form is encoded only as it is written: a batch's envelopes are held once, as the claim's text, not twice.
     * A CloudEvent is made here, so a row that cannot become one fails alone; a batch of them is held twice.
     */
    private record Message(
            ClaimedRow row, String routingKey, AMQP.BasicProperties properties, byte[] cloudEvent, Span span) {
        static Message of(ClaimedRow row, OutboxConfig.EnvelopeFormat format, String exchange, MessagingSpans spans) {
            EnvelopeHeaders headers = EnvelopeHeaders.read(row.envelope());
            // A row staged under a trace gets its publish span, whose context the message carries
            // (docs/operations.md, "Tracing"); an untraced row costs nothing here.
            Span span = TraceContext.fromStored(row.traceparent(), row.tracestate())
                    .map(created -> spans.publish(
                            created,
                            TraceContext.fromStored(row.replayTraceparent(), null),
                            exchange,
                            headers.eventType(),
                            row.id()))
                    .orElse(null);
            try {
                return build(row, headers, format, span);
            } catch (RuntimeException e) {
                if (span != null) {
                    MessagingSpans.settled(span, false, "unpublishable envelope: " + describe(e));
                }
                throw e;
            }
        }

        private static Message build(
                ClaimedRow row, EnvelopeHeaders headers, OutboxConfig.EnvelopeFormat format, Span span) {
            TraceContext trace = span == null ? null : TraceContext.of(span).orElse(null);
            AMQP.BasicProperties properties = ConfirmedPublisher.properties(headers, row.publication(), trace);
            if (format == OutboxConfig.EnvelopeFormat.CLOUDEVENTS) {
                // The CloudEvents distributed-tracing extension names the same context as the headers.
                byte[] event = CloudEventJson.fromEnvelopeJson(
                                headers,
                                row.envelope(),
                                trace == null ? null : trace.traceparent(),
                                trace == null ? null : trace.tracestate())
                        .getBytes(StandardCharsets.UTF_8);
                return new Message(
                        row,
                        headers.eventType(),
                        properties
                                .builder()
                                .contentType(CloudEventJson.CONTENT_TYPE)
                                .build(),
                        event,
                        span);
            }
            return new Message(row, headers.eventType(), properties, null, span);
        }

        UUID id() {
            return row.id();
        }

        byte[] body() {
            return cloudEvent != null ? cloudEvent : row.envelope().getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Waits for a sent batch's confirms, within the deadline its send started, and judges each message.
     * One outcome per row, in the claim's order. Never throws.
     */
    public List<PublishOutcome> settle(Sent sent) {
        Map<UUID, PublishOutcome> outcomes = new LinkedHashMap<>(sent.decided);
        if (sent.confirms != null) {
            outcomes.putAll(awaitConfirms(sent));
        }
        endSpans(sent.publishSpans, outcomes);
        List<PublishOutcome> ordered = new ArrayList<>(sent.claim.size());
        for (ClaimedRow row : sent.claim.rows()) {
            ordered.add(outcomes.get(row.id()));
        }
        return ordered;
    }

    private Map<UUID, PublishOutcome> awaitConfirms(Sent sent) {
        PublisherConfirms confirms = sent.confirms;
        try {
            confirms.await(sent.deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            confirms.failOutstanding("interrupted while awaiting publisher confirms");
        } finally {
            sent.channel.removeReturnListener(sent.returns);
            sent.channel.removeConfirmListener(confirms);
            sent.channel.removeShutdownListener(sent.closed);
        }
        Map<UUID, PublishOutcome> outcomes = confirms.outcomes(sent.ids);
        if (outcomes.values().stream()
                .anyMatch(o -> o.result() == PublishOutcome.Result.CONFIRMED
                        || o.result() == PublishOutcome.Result.UNROUTABLE)) {
            lastConfirmNanos = System.nanoTime();
            broker.publishConfirmed();
        }
        Integer others = unsettled.merge(sent.channel, -1, Integer::sum);
        boolean alone = others == null || others <= 0;
        if (alone) {
            unsettled.remove(sent.channel);
        }
        if (sent.channel != channel) {
            // The channel this batch went out on was already replaced, after an earlier batch's failure.
            if (sent.channel == retiring && alone) {
                closeQuietly(retiring);
                retiring = null;
            }
            return outcomes;
        }
        if (confirms.timedOut()) {
            // A broker that owes confirms this long is wedged, blocked or the link is half-open: reconnect.
            LOG.warning("No publisher confirms within "
                    + config.confirmTimeout().toMillis() + " ms: dropping the broker connection");
            channel = null;
            broker.abort();
        } else if (outcomes.values().stream().anyMatch(o -> o.result() == PublishOutcome.Result.FAILED)) {
            // A channel that failed a message is not trusted with the next batch: start it on a new channel.
            dropChannel();
        } else if (outcomes.values().stream().anyMatch(o -> o.result() == PublishOutcome.Result.REJECTED)) {
            // Nacked (these outcomes are the sent messages' own). Neither: RabbitMQ 3.10.8 nacks every later publish
            // on a channel whose first publish to a quorum queue met no leader (its node had just been lost), while a
            // new channel publishes at once (docs/decisions/0089-cluster-and-delivery-limits.md). A batch still in
            // flight on it keeps it until that batch is settled.
            if (alone) {
                dropChannel();
            } else {
                if (retiring != null) {
                    closeQuietly(retiring); // one whose batch was never settled (a tick that failed): none waits
                }
                retiring = channel;
                channel = null;
            }
        }
        return outcomes;
    }

    /** Ends each publish span with its message's outcome: an error unless confirmed and routed. */
    private static void endSpans(Map<UUID, Span> publishSpans, Map<UUID, PublishOutcome> outcomes) {
        publishSpans.forEach((id, span) -> {
            PublishOutcome outcome = outcomes.get(id);
            boolean confirmed = outcome != null && outcome.result() == PublishOutcome.Result.CONFIRMED;
            MessagingSpans.settled(
                    span,
                    confirmed,
                    outcome == null
                            ? null
                            : outcome.result() + (outcome.detail() == null ? "" : ": " + outcome.detail()));
        });
    }

    @PreDestroy
    public void close() {
        dropChannel();
        if (retiring != null) {
            closeQuietly(retiring);
            retiring = null;
        }
    }

    private void abandonChannel() {
        try {
            channel.abort();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "abandoning a channel failed", e);
        }
        channel = null;
    }

    private void dropChannel() {
        if (channel != null) {
            closeQuietly(channel);
            channel = null;
        }
    }

    /**
     * The message's properties. {@code publication} is the row's generation: the drain's retries and the
     * broker's redeliveries keep it, a replay increments it, which is how a consumer tells a replay of an
     * envelope it gave up on from another copy of the one it gave up on.
     */
    static AMQP.BasicProperties properties(EnvelopeHeaders envelope, int publication, TraceContext trace) {
        Map<String, Object> headers = new HashMap<>();
        headers.put("schema_version", envelope.schemaVersion());
        headers.put(PUBLICATION_HEADER, publication);
        if (trace != null) {
            trace.addTo(headers);
        }
        return MessageProperties.PERSISTENT_BASIC
                .builder()
                .messageId(envelope.id().toString())
                .type(envelope.eventType())
                .appId(envelope.sourceService())
                .contentType("application/json")
                .contentEncoding(StandardCharsets.UTF_8.name())
                .correlationId(envelope.correlationId())
                .timestamp(Date.from(envelope.occurredAt()))
                .headers(headers)
                .build();
    }

    private static void closeQuietly(Channel channel) {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            LOG.log(Level.FINE, "publishing channel did not close cleanly", e);
        }
    }

    static String describe(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
}
