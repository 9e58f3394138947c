package dev.durability.outbox.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.MessageProperties;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
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
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes claimed batches to the events exchange with publisher confirms, awaited once per batch
 * and judged per message ({@link PublisherConfirms}). Messages are {@code mandatory}, so one no queue
 * is bound for comes back as a return before its ack and is reported unroutable, never as a delivery.
 *
 * <p>The drain calls {@link #prepare()} before it claims: connecting and opening the confirm channel
 * happen while no row is claimed, so a claim's lease only has to outlast the publish itself.
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

    /** Why the broker currently refuses publishes (a memory or disk alarm), if it does. */
    public Optional<String> blocked() {
        return broker.blockedReason().map(reason -> "broker blocked publishing: " + reason);
    }

    /**
     * Makes sure a confirm channel is open, connecting if needed.
     *
     * @return why the broker cannot be reached, or empty when it can
     */
    public Optional<String> prepare() {
        if (channel != null && channel.isOpen()) {
            return Optional.empty();
        }
        try {
            Channel opened = broker.openChannel();
            try {
                opened.confirmSelect();
                // Declared again on every new channel: an exchange deleted under a live connection comes back.
                broker.declareTopology(opened);
            } catch (IOException | RuntimeException e) {
                closeQuietly(opened);
                throw e;
            }
            channel = opened;
            return Optional.empty();
        } catch (IOException | TimeoutException | RuntimeException e) {
            return Optional.of("broker unreachable: " + describe(e));
        }
    }

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
        List<UUID> ids = batch.keySet().stream().map(ClaimedEvent::id).toList();
        PublisherConfirms confirms = new PublisherConfirms();
        Channel confirming = channel;
        if (confirming == null || !confirming.isOpen()) {
            confirms.failUnsent(ids, "broker unreachable: the confirm channel closed before the batch was sent");
            return confirms.outcomes(ids);
        }
        ReturnListener returns = confirming.addReturnListener(confirms::returned);
        confirming.addConfirmListener(confirms);
        ShutdownListener closed = confirms::closed;
        confirming.addShutdownListener(closed);
        try {
            int sent = 0;
            try {
                for (Map.Entry<ClaimedEvent, EventEnvelope> message : batch.entrySet()) {
                    Optional<String> blocked = broker.blockedReason();
                    if (blocked.isPresent()) {
                        // The broker stopped reading: writing more would only block this thread.
                        throw new IOException("broker blocked publishing: " + blocked.get());
                    }
                    AMQP.BasicProperties properties = properties(message.getValue());
                    byte[] body = message.getKey().envelopeJson().getBytes(StandardCharsets.UTF_8);
                    long sequence = confirming.getNextPublishSeqNo();
                    confirms.sending(sequence, message.getKey().id());
                    try {
                        confirming.basicPublish(brokerConfig.eventsExchange(), message.getValue().eventType(), true,
                                properties, body);
                    } catch (IOException | RuntimeException e) {
                        if (confirming.getNextPublishSeqNo() == sequence) {
                            confirms.notSent(sequence); // refused before it took a sequence number
                        }
                        throw e;
                    }
                    sent++;
                }
            } catch (IOException | RuntimeException e) {
                // Stop sending, but what was already sent still gets its own confirm: failing it here would
                // publish it twice on the retry.
                confirms.failUnsent(ids.subList(sent, ids.size()), "not sent: " + describe(e));
            }
            confirms.await(config.confirmTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            confirms.failOutstanding("interrupted while awaiting publisher confirms");
        } finally {
            confirming.removeReturnListener(returns);
            confirming.removeConfirmListener(confirms);
            confirming.removeShutdownListener(closed);
        }
        Map<UUID, PublishOutcome> outcomes = confirms.outcomes(ids);
        if (confirms.timedOut()) {
            // A broker that owes confirms this long is wedged or the link is half-open: reconnect on the next tick.
            LOG.warning("No publisher confirms within " + config.confirmTimeout().toMillis()
                    + " ms: dropping the broker connection");
            channel = null;
            broker.abort();
        } else if (outcomes.values().stream().anyMatch(o -> o.result() == PublishOutcome.Result.FAILED)) {
            // Late confirms of this batch must never be read as another batch's: start the next on a new channel.
            closeQuietly(confirming);
            channel = null;
        }
        return outcomes;
    }

    @PreDestroy
    public void close() {
        if (channel != null) {
            closeQuietly(channel);
            channel = null;
        }
    }

    static AMQP.BasicProperties properties(EventEnvelope envelope) {
        return MessageProperties.PERSISTENT_BASIC.builder()
                .messageId(envelope.id().toString())
                .type(envelope.eventType())
                .appId(envelope.sourceService())
                .contentType("application/json")
                .contentEncoding(StandardCharsets.UTF_8.name())
                .correlationId(envelope.correlationId())
                .timestamp(Date.from(envelope.occurredAt()))
                .headers(Map.of("schema_version", envelope.schemaVersion()))
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
