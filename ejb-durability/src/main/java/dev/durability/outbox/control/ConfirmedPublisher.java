package dev.durability.outbox.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.MessageProperties;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.envelope.EnvelopeJson;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes a claimed batch to the events exchange with publisher confirms. Confirms are awaited once
 * per batch, but judged per message: a row counts as confirmed only when the broker acked that
 * message's sequence number; a nack, a timeout or a broken channel fails it. Messages are
 * {@code mandatory}, so one no queue is bound for comes back as a return before its ack and is
 * reported unroutable, never as a delivery.
 */
@ApplicationScoped
public class ConfirmedPublisher {
    private static final Logger LOG = Logger.getLogger(ConfirmedPublisher.class.getName());

    @Inject
    BrokerConnection broker;

    @Inject
    BrokerConfig brokerConfig;

    @Inject
    OutboxConfig config;

    /**
     * The confirm channel, kept across batches while every message on it was settled. Only the drain
     * uses it, one tick at a time (ticks never overlap), so it needs no lock.
     */
    private Channel channel;

    /** One outcome per event, in the batch's order. Never throws: a broker fault fails the affected messages. */
    public List<PublishOutcome> publish(List<ClaimedEvent> batch) {
        Map<UUID, PublishOutcome> outcomes = new LinkedHashMap<>();
        Map<ClaimedEvent, EventEnvelope> sendable = new LinkedHashMap<>();
        for (ClaimedEvent event : batch) {
            try {
                sendable.put(event, EnvelopeJson.read(event.envelopeJson()));
            } catch (InvalidEnvelopeException e) {
                // Only rows written around OutboxStager can get here; retrying would never help, but the row
                // must stay visible (pending, with its error) for an operator rather than vanish.
                outcomes.put(event.id(), PublishOutcome.failed(event.id(), "invalid envelope: " + e.getMessage()));
            }
        }
        if (!sendable.isEmpty()) {
            outcomes.putAll(publishConfirmed(sendable));
        }
        List<PublishOutcome> ordered = new ArrayList<>(batch.size());
        for (ClaimedEvent event : batch) {
            ordered.add(outcomes.get(event.id()));
        }
        return ordered;
    }

    private Map<UUID, PublishOutcome> publishConfirmed(Map<ClaimedEvent, EventEnvelope> batch) {
        List<ClaimedEvent> events = List.copyOf(batch.keySet());
        Confirms confirms = new Confirms();
        Channel confirming;
        try {
            confirming = confirmChannel();
        } catch (IOException | TimeoutException | RuntimeException e) {
            return confirms.failAll(events, "broker unreachable: " + describe(e));
        }
        ReturnListener returns = confirming.addReturnListener(confirms::returned);
        confirming.addConfirmListener(confirms);
        ShutdownListener shutdown = confirms::shutdown;
        confirming.addShutdownListener(shutdown);
        try {
            for (Map.Entry<ClaimedEvent, EventEnvelope> message : batch.entrySet()) {
                confirms.sending(confirming.getNextPublishSeqNo(), message.getKey().id());
                confirming.basicPublish(brokerConfig.eventsExchange(), message.getValue().eventType(), true,
                        properties(message.getValue()),
                        message.getKey().envelopeJson().getBytes(StandardCharsets.UTF_8));
            }
            confirms.await(config.confirmTimeout());
        } catch (IOException | RuntimeException e) {
            confirms.failOutstanding("publish failed: " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            confirms.failOutstanding("interrupted while awaiting publisher confirms");
        } finally {
            confirming.removeReturnListener(returns);
            confirming.removeConfirmListener(confirms);
            confirming.removeShutdownListener(shutdown);
        }
        Map<UUID, PublishOutcome> outcomes = confirms.outcomes(events);
        if (outcomes.values().stream().anyMatch(o -> o.result() == PublishOutcome.Result.FAILED)) {
            // Late confirms of this batch must never be read as another batch's: start the next on a new channel.
            closeQuietly(confirming);
            channel = null;
        }
        return outcomes;
    }

    private Channel confirmChannel() throws IOException, TimeoutException {
        if (channel == null || !channel.isOpen()) {
            Channel opened = broker.openChannel();
            try {
                opened.confirmSelect();
            } catch (IOException | RuntimeException e) {
                closeQuietly(opened);
                throw e;
            }
            channel = opened;
        }
        return channel;
    }

    @PreDestroy
    void close() {
        if (channel != null) {
            closeQuietly(channel);
        }
    }

    static AMQP.BasicProperties properties(EventEnvelope envelope) {
        Map<String, Object> headers = new HashMap<>();
        headers.put("schema_version", envelope.schemaVersion());
        return MessageProperties.PERSISTENT_BASIC.builder()
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

    private static String describe(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    /** The confirm bookkeeping of one batch on one channel; listener callbacks arrive on the connection's thread. */
    private static final class Confirms implements ConfirmListener {
        private final NavigableMap<Long, UUID> outstanding = new TreeMap<>();
        private final Map<UUID, PublishOutcome> outcomes = new HashMap<>();
        private final Map<UUID, String> returned = new HashMap<>();
        private String shutdown;

        synchronized void sending(long sequenceNumber, UUID id) {
            outstanding.put(sequenceNumber, id);
        }

        synchronized void returned(Return message) {
            String messageId = message.getProperties().getMessageId();
            if (messageId != null) {
                returned.put(UUID.fromString(messageId), "unroutable: " + message.getReplyCode() + " "
                        + message.getReplyText() + " (exchange " + message.getExchange() + ", routing key "
                        + message.getRoutingKey() + ")");
            }
        }

        @Override
        public synchronized void handleAck(long deliveryTag, boolean multiple) {
            settle(deliveryTag, multiple, true);
        }

        @Override
        public synchronized void handleNack(long deliveryTag, boolean multiple) {
            settle(deliveryTag, multiple, false);
        }

        private void settle(long deliveryTag, boolean multiple, boolean ack) {
            // A view of the outstanding map: clearing it settles exactly these. A confirm arriving after the
            // batch already timed out finds nothing left to settle.
            Map<Long, UUID> settled = multiple ? outstanding.headMap(deliveryTag, true)
                    : outstanding.subMap(deliveryTag, true, deliveryTag, true);
            for (UUID id : settled.values()) {
                String unroutable = returned.get(id);
                outcomes.put(id, !ack ? PublishOutcome.failed(id, "nacked by the broker")
                        : unroutable != null ? PublishOutcome.unroutable(id, unroutable)
                        : PublishOutcome.confirmed(id));
            }
            settled.clear();
            notifyAll();
        }

        synchronized void shutdown(ShutdownSignalException cause) {
            shutdown = "channel closed before confirm: " + describe(cause);
            notifyAll();
        }

        synchronized void await(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!outstanding.isEmpty() && shutdown == null) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    failOutstanding("no publisher confirm within " + timeout.toMillis() + " ms");
                    return;
                }
                wait(Math.max(1, remaining / 1_000_000));
            }
            failOutstanding(shutdown);
        }

        synchronized void failOutstanding(String reason) {
            for (UUID id : outstanding.values()) {
                outcomes.put(id, PublishOutcome.failed(id, reason));
            }
            outstanding.clear();
        }

        synchronized Map<UUID, PublishOutcome> failAll(List<ClaimedEvent> batch, String reason) {
            for (ClaimedEvent event : batch) {
                outcomes.put(event.id(), PublishOutcome.failed(event.id(), reason));
            }
            return outcomes;
        }

        synchronized Map<UUID, PublishOutcome> outcomes(List<ClaimedEvent> batch) {
            // A message never handed to the channel (it broke first) has no outcome yet.
            for (ClaimedEvent event : batch) {
                outcomes.computeIfAbsent(event.id(), id -> PublishOutcome.failed(id,
                        shutdown != null ? shutdown : "not sent: the channel failed earlier in the batch"));
            }
            return outcomes;
        }
    }
}
