package dev.durability.inbox.boundary;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.durability.deadletter.control.DeadLetterWrapper;
import dev.durability.deadletter.control.MessageContent;
import dev.durability.deadletter.control.OccurrenceToken;
import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.envelope.control.CloudEventJson;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.control.ConfirmedSend;
import dev.durability.inbox.control.ConsumerDeclaration;
import dev.durability.inbox.control.InboxMetrics;
import dev.durability.inbox.control.QueueTopology;
import dev.durability.inbox.control.RetryPolicy;
import dev.durability.inbox.entity.InboxState;
import dev.durability.outbox.control.ConfirmedPublisher;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Takes one consumer queue's deliveries on one channel, one at a time, the way a message-driven bean's
 * container does: reads the envelope, runs the delivery's transaction, and acks only after it
 * committed; a failed handler is counted and its delivery re-published to a delay queue or, at the end
 * of its retries, to the dead-letter exchange, confirmed before the original is acked.
 *
 * <p>When the database or the broker fails under it (no attempt could even be recorded, a send was not
 * confirmed), nothing is acked: the channel is dropped, which returns every unacked delivery to the
 * queue, and the supervisor resumes the consumer after a pause. A failed ack likewise drops the channel.
 */
public final class InboxListener extends DefaultConsumer {
    private static final Logger LOG = Logger.getLogger(InboxListener.class.getName());
    static final String RETRY_HEADER = "x-durability-retry";

    private final ConsumerDeclaration consumer;
    private final EventHandler handler;
    private final RetryPolicy policy;
    private final InboxTransactions transactions;
    private final ConfirmedSend send;
    private final InboxMetrics metrics;
    private final String deadLetterExchange;
    private final String serviceName;
    private final Runnable pause;
    private final Runnable reopen;
    private final int maxMessageBytes;
    private final MessagingSpans spans;

    public InboxListener(
            Channel channel,
            ConsumerDeclaration consumer,
            EventHandler handler,
            RetryPolicy policy,
            InboxTransactions transactions,
            ConfirmedSend send,
            InboxMetrics metrics,
            String deadLetterExchange,
            String serviceName,
            Runnable pause,
            Runnable reopen,
            int maxMessageBytes,
            MessagingSpans spans) {
        super(channel);
        this.consumer = consumer;
        this.handler = handler;
        this.policy = policy;
        this.transactions = transactions;
        this.send = send;
        this.metrics = metrics;
        this.deadLetterExchange = deadLetterExchange;
        this.serviceName = serviceName;
        this.pause = pause;
        this.reopen = reopen;
        this.maxMessageBytes = maxMessageBytes;
        this.spans = spans;
    }

    @Override
    public void handleDelivery(String tag, Envelope delivery, AMQP.BasicProperties properties, byte[] body) {
        long arrived = System.nanoTime();
        try {
            handle(delivery, properties, body);
        } catch (Exception | LinkageError e) {
            LOG.log(
                    Level.WARNING,
                    "Consumer of " + consumer.queue() + " could not finish a delivery (the database or the broker "
                            + "failed under it); its deliveries go back to the queue and it resumes after a pause: "
                            + e,
                    e);
            metrics.paused(consumer.queue());
            abort();
            pause.run();
            return;
        }
        metrics.handled(consumer.queue(), Duration.ofNanos(System.nanoTime() - arrived));
        try {
            getChannel().basicAck(delivery.getDeliveryTag(), false);
        } catch (IOException | RuntimeException e) {
            // The delivery's outcome is committed; its redelivery will be a dedup hit. The channel is not to be
            // trusted with further acks: drop it and let the supervisor open a new one at once.
            LOG.log(Level.WARNING, "Ack failed on the consumer of " + consumer.queue() + "; reopening its channel", e);
            abort();
            reopen.run();
        }
    }

    private void handle(Envelope delivery, AMQP.BasicProperties properties, byte[] body) throws IOException {
        Optional<TraceContext> headerTrace = TraceContext.fromHeaders(properties.getHeaders());
        Optional<String> text = MessageContent.utf8(body);
        if (text.isEmpty()) {
            traced(
                    headerTrace,
                    properties,
                    () -> deadLetterMalformed(properties, body, "the message is not UTF-8 text"));
            return;
        }
        CloudEventJson.Decoded decoded;
        try {
            // Either format, whatever this service publishes in (docs/envelope.md, "CloudEvents").
            decoded = CloudEventJson.readEither(properties.getContentType(), text.get(), sentAt(properties));
        } catch (InvalidEnvelopeException e) {
            traced(headerTrace, properties, () -> deadLetterMalformed(properties, body, e.getMessage()));
            return;
        }
        // The headers' context, else a CloudEvent's distributed-tracing extension (another stack's producer).
        Optional<TraceContext> trace =
                headerTrace.or(() -> TraceContext.fromStored(decoded.traceparent(), decoded.tracestate()));
        traced(trace, properties, () -> handle(delivery, properties, body, decoded.envelope()));
    }

    /** Work on the delivery inside its process span (docs/operations.md, "Tracing"): current, so the handler's are inside. */
    private void traced(Optional<TraceContext> sentWith, AMQP.BasicProperties properties, DeliveryWork work)
            throws IOException {
        Span span = spans.process(consumer.queue(), sentWith, properties.getMessageId(), attempt(properties));
        try (Scope scope = span.makeCurrent()) {
            work.run();
        } catch (IOException | RuntimeException e) {
            MessagingSpans.failed(span, "the delivery could not be finished: " + e, e);
            throw e;
        } finally {
            span.end();
        }
    }

    @FunctionalInterface
    private interface DeliveryWork {
        void run() throws IOException;
    }

    /** The consumer's attempt at a delivery: 1, or one more than the retries its header counts. */
    private static int attempt(AMQP.BasicProperties properties) {
        Object retries =
                properties.getHeaders() == null ? null : properties.getHeaders().get(RETRY_HEADER);
        return retries instanceof Number number ? number.intValue() + 1 : 1;
    }

    private void handle(Envelope delivery, AMQP.BasicProperties properties, byte[] body, EventEnvelope envelope)
            throws IOException {
        Integer publication = publication(properties);
        InboxTransactions.Processing processing = process(envelope);
        if (processing.result() == InboxTransactions.Processing.Result.DEAD_LETTERED_BEFORE
                && isReplay(processing.state(), delivery, properties, publication)) {
            // A new publication of an envelope this consumer gave up on: a replay, and a new occurrence. A
            // redelivery of the publication it gave up on surfaces the same dead letter again, token and all.
            transactions.restart(consumer.queue(), envelope);
            processing = process(envelope);
        }
        switch (processing.result()) {
            case PROCESSED -> metrics.processed(consumer.queue());
            case DUPLICATE -> metrics.dedupHit(consumer.queue());
            case DEAD_LETTERED_BEFORE ->
                deadLetter(envelope, properties, body, processing.state(), surfacedAgain(processing));
            case FAILED -> failed(envelope, properties, body, processing.failure(), publication);
            case INBOX_UNAVAILABLE ->
                throw new IllegalStateException(
                        "the inbox is unavailable: " + processing.failure(), processing.failure());
        }
    }

    /**
     * The delivery's transaction; a failure of it after the handler ran (at commit: a constraint, a
     * timeout) is the handler's failure like one it threw. When the database itself is down, recording
     * the failure fails too, and the consumer pauses.
     */
    private InboxTransactions.Processing process(EventEnvelope envelope) {
        try {
            return transactions.process(consumer.queue(), envelope, handler);
        } catch (RuntimeException e) {
            return new InboxTransactions.Processing(InboxTransactions.Processing.Result.FAILED, null, e);
        }
    }

    /**
     * Whether a delivery of an envelope this consumer dead-lettered is a replay: a publication other
     * than the one it gave up on; for producers that name no publication, a first delivery that is no
     * retry of ours.
     */
    static boolean isReplay(InboxState state, Envelope delivery, AMQP.BasicProperties properties, Integer publication) {
        if (publication != null && state.deadLetteredPublication() != null) {
            return !publication.equals(state.deadLetteredPublication());
        }
        return !delivery.isRedeliver() && !hasHeader(properties, RETRY_HEADER);
    }

    private void failed(
            EventEnvelope envelope,
            AMQP.BasicProperties properties,
            byte[] body,
            Exception failure,
            Integer publication)
            throws IOException {
        boolean permanent = consumer.isPermanent(failure);
        MessagingSpans.failed(
                Span.current(),
                "handler " + consumer.handlerName() + " failed: " + InboxTransactions.describe(failure),
                failure);
        List<InboxTransactions.Failure> recorded =
                transactions.recordFailure(consumer.queue(), envelope, failure, permanent, policy, publication);
        if (recorded.isEmpty()) {
            metrics.dedupHit(consumer.queue());
            return;
        }
        InboxTransactions.Failure outcome = recorded.get(0);
        int attempts = outcome.state().attempts();
        if (outcome.next() == RetryPolicy.Next.RETRY) {
            LOG.log(
                    Level.INFO,
                    () -> "Handler " + consumer.handlerName() + " failed attempt " + attempts + " of "
                            + policy.maxAttempts() + " for " + envelope.eventType() + " " + envelope.id()
                            + "; retried in " + policy.delayAfter(attempts).toMillis() + " ms: " + failure);
            send.send(
                    "",
                    RetryPolicy.delayQueue(consumer.queue(), policy.delayAfter(attempts)),
                    retryProperties(properties, attempts),
                    body);
            metrics.retried(consumer.queue());
            return;
        }
        String reason = (permanent ? "permanent failure" : "retries exhausted after " + attempts + " attempts") + ": "
                + InboxTransactions.describe(failure);
        LOG.log(
                Level.WARNING,
                () -> "Handler " + consumer.handlerName() + " gave up on " + envelope.eventType() + " " + envelope.id()
                        + " (" + reason + "); dead-lettered to " + QueueTopology.deadLetterKey(consumer.queue()));
        deadLetter(envelope, properties, body, outcome.state(), reason);
    }

    /** The application path: the wrapper, with the token of the inbox row's occurrence, confirmed at the DLX. */
    private void deadLetter(
            EventEnvelope envelope, AMQP.BasicProperties properties, byte[] body, InboxState state, String reason)
            throws IOException {
        MessagingSpans.failed(Span.current(), "dead-lettered: " + reason, null);
        DeadLetterWrapper wrapper = new DeadLetterWrapper(
                reason,
                consumer.queue(),
                envelope.sourceService(),
                OccurrenceToken.application(envelope.id(), consumer.queue(), state.receivedMicros()),
                Instant.now(),
                state.attempts(),
                MessageContent.of(body));
        publishDeadLetter(
                wrapper, properties, envelope.eventType(), envelope.id().toString());
    }

    /** A message that is no envelope has no inbox row: its token is its bytes' and message id's, raw bytes kept. */
    private void deadLetterMalformed(AMQP.BasicProperties properties, byte[] body, String why) throws IOException {
        MessagingSpans.failed(Span.current(), "malformed envelope: " + why, null);
        LOG.warning(() -> "Consumer of " + consumer.queue() + " received a malformed envelope (message id "
                + properties.getMessageId() + ", " + body.length + " bytes): " + why + "; dead-lettered");
        DeadLetterWrapper wrapper = new DeadLetterWrapper(
                "malformed envelope: " + why,
                consumer.queue(),
                properties.getAppId(),
                OccurrenceToken.malformed(consumer.queue(), properties.getMessageId(), body),
                Instant.now(),
                0,
                MessageContent.of(body));
        publishDeadLetter(wrapper, properties, null, properties.getMessageId());
    }

    private void publishDeadLetter(
            DeadLetterWrapper wrapper, AMQP.BasicProperties original, String eventType, String messageId)
            throws IOException {
        Map<String, Object> headers = new HashMap<>();
        headers.put(DeadLetterWrapper.HEADER, DeadLetterWrapper.VERSION);
        // The process span that gave up: the dead-letter audit's span continues its trace.
        TraceContext.current().ifPresent(trace -> trace.addTo(headers));
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(2)
                .messageId(messageId)
                .type(eventType)
                .appId(serviceName)
                .correlationId(original.getCorrelationId())
                .timestamp(new java.util.Date())
                .headers(headers)
                .build();
        byte[] whole = wrapper.toJson();
        DeadLetterWrapper sendable = wrapper.within(maxMessageBytes, whole.length);
        byte[] body = whole;
        if (sendable != wrapper) {
            // A wrapper over the broker's limit would close the channel and return the original to the queue, to
            // fail the same way again, forever: its dead letter is recorded with truncated evidence instead.
            LOG.warning(() -> "Dead letter " + messageId + " from " + consumer.queue() + " is too large to forward "
                    + "whole (a wrapper of " + whole.length + " bytes, over durability.broker.max-message-bytes = "
                    + maxMessageBytes + "): recorded with truncated evidence");
            body = sendable.toJson();
        }
        send.send(deadLetterExchange, QueueTopology.deadLetterKey(consumer.queue()), properties, body);
        metrics.deadLettered(consumer.queue());
    }

    /** The original's properties for its retry, without the broker's death records of earlier waits. */
    private static AMQP.BasicProperties retryProperties(AMQP.BasicProperties original, int attempts) {
        Map<String, Object> headers = new HashMap<>();
        if (original.getHeaders() != null) {
            original.getHeaders().forEach((key, value) -> {
                if (!key.equals("x-death") && !key.startsWith("x-first-death") && !key.startsWith("x-last-death")) {
                    headers.put(key, value);
                }
            });
        }
        headers.put(RETRY_HEADER, attempts);
        return original.builder().headers(headers).expiration(null).build();
    }

    /**
     * The outbox row's publication generation the message carries; none when absent or not a small
     * non-negative integer (a foreign producer's header is never stored as it came).
     */
    static Integer publication(AMQP.BasicProperties properties) {
        Object value = properties.getHeaders() == null
                ? null
                : properties.getHeaders().get(ConfirmedPublisher.PUBLICATION_HEADER);
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            long number = ((Number) value).longValue();
            return number >= 0 && number <= Integer.MAX_VALUE ? (int) number : null;
        }
        return null;
    }

    /** When a CloudEvent without {@code time} happened, as near as the message tells: its timestamp, or now. */
    private static Instant sentAt(AMQP.BasicProperties properties) {
        return properties.getTimestamp() != null
                ? properties.getTimestamp().toInstant()
                : Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    /** The broker cancelled this consumer (its queue was deleted): drop the channel, so it is consumed again. */
    @Override
    public void handleCancel(String consumerTag) {
        LOG.warning(() -> "RabbitMQ cancelled the consumer of " + consumer.queue() + "; reopening it");
        abort();
        reopen.run();
    }

    private static boolean hasHeader(AMQP.BasicProperties properties, String header) {
        return properties.getHeaders() != null && properties.getHeaders().containsKey(header);
    }

    private static String surfacedAgain(InboxTransactions.Processing processing) {
        String error = processing.state().lastError();
        return "dead-lettered before, surfaced again after a redelivery" + (error == null ? "" : ": " + error);
    }

    private void abort() {
        try {
            getChannel().abort();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "aborting a consumer channel failed", e);
        }
    }
}
