package dev.durability.deadletter.boundary;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.durability.deadletter.control.DeadLetterConfig;
import dev.durability.deadletter.control.DeadLetterMetrics;
import dev.durability.deadletter.control.IncomingDeadLetter;
import dev.durability.tracing.control.MessagingSpans;
import dev.durability.tracing.control.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Takes the service's dead-letter queue's deliveries on one channel and acks each only after its audit
 * row committed. Its own failures are classified: a failing database (transient) is retried in this
 * session with backoff, then the delivery is parked (kept, and tried again after a delay); content the database
 * refuses (permanent) is recorded quarantined as raw bytes. A failed ack drops the channel and
 * the supervisor opens a new one at once: an ack is never just warned about.
 *
 * <p>A parked dead letter is never handed back to the broker: a quorum dead-letter queue counts every hand-back
 * towards its delivery limit (RabbitMQ 4.0 to 4.2 set one of 20 on every quorum queue, and this queue has no
 * dead-letter exchange of its own, so the letter would be dropped), docs/decisions/0089-cluster-and-delivery-limits.md.
 */
public final class DeadLetterListener extends DefaultConsumer {
    private static final Logger LOG = Logger.getLogger(DeadLetterListener.class.getName());

    private final DeadLetterAudit audit;
    private final DeadLetterConfig config;
    private final DeadLetterMetrics metrics;
    private final Runnable reopen;
    private final MessagingSpans spans;

    public DeadLetterListener(
            Channel channel,
            DeadLetterAudit audit,
            DeadLetterConfig config,
            DeadLetterMetrics metrics,
            Runnable reopen,
            MessagingSpans spans) {
        super(channel);
        this.audit = audit;
        this.config = config;
        this.metrics = metrics;
        this.reopen = reopen;
        this.spans = spans;
    }

    @Override
    public void handleDelivery(String tag, Envelope delivery, AMQP.BasicProperties properties, byte[] body) {
        IncomingDeadLetter letter = read(delivery, properties, body);
        // The trace ends here, in the span that gave up (the consumer's process span, or the publish span when the
        // broker dead-lettered the message): the audit row keeps its trace id for the admin pages.
        Optional<TraceContext> sentWith = TraceContext.fromHeaders(properties.getHeaders());
        Span span = spans.deadLetter(letter.originalQueue(), sentWith, properties.getMessageId(), letter.reason());
        String traceId = span.getSpanContext().isValid()
                ? span.getSpanContext().getTraceId()
                : sentWith.map(TraceContext::traceId).orElse(null);
        try (Scope scope = span.makeCurrent()) {
            DeadLetterMetrics.Outcome outcome = recordWithRetries(letter, traceId);
            while (outcome == DeadLetterMetrics.Outcome.PARKED && getChannel().isOpen()) {
                metrics.outcome(outcome);
                if (!sleep(config.park().toMillis())) {
                    break;
                }
                outcome = recordWithRetries(letter, traceId);
            }
            if (outcome != DeadLetterMetrics.Outcome.PARKED) {
                metrics.outcome(outcome);
            }
            settle(delivery, outcome);
        } finally {
            span.end();
        }
    }

    /**
     * Acks a dead letter whose outcome is recorded. One still parked here is only so because this server stops or its
     * channel is gone: the broker takes it back with the channel, to be recorded by whoever consumes next.
     */
    private void settle(Envelope delivery, DeadLetterMetrics.Outcome outcome) {
        if (outcome == DeadLetterMetrics.Outcome.PARKED) {
            if (getChannel().isOpen()) {
                abortAndReopen();
            }
            return;
        }
        try {
            getChannel().basicAck(delivery.getDeliveryTag(), false);
        } catch (IOException | RuntimeException e) {
            ackFailed(e);
        }
    }

    /** Reading never fails by design; should it still, the dead letter is recorded as it came, raw and tokenless. */
    private static IncomingDeadLetter read(Envelope delivery, AMQP.BasicProperties properties, byte[] body) {
        try {
            return IncomingDeadLetter.read(delivery.getRoutingKey(), properties, body);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "A dead letter could not be read; recording its raw bytes", e);
            return IncomingDeadLetter.unreadable(delivery.getRoutingKey(), body, e.toString());
        }
    }

    /** The broker cancelled this consumer (its queue was deleted): drop the channel, so it is consumed again. */
    @Override
    public void handleCancel(String consumerTag) {
        LOG.warning("RabbitMQ cancelled the dead-letter consumer (its queue was deleted?); reopening it");
        abortAndReopen();
    }

    private DeadLetterMetrics.Outcome recordWithRetries(IncomingDeadLetter letter, String traceId) {
        long backoff = 200;
        for (int attempt = 1; attempt <= config.recordAttempts(); attempt++) {
            try {
                return audit.record(letter, traceId);
            } catch (RuntimeException e) {
                if (refusedContent(e)) {
                    return quarantine(letter, e, traceId);
                }
                LOG.log(
                        attempt == 1 ? Level.WARNING : Level.FINE,
                        "Recording a dead letter failed (attempt " + attempt + " of " + config.recordAttempts() + "): "
                                + e,
                        e);
            }
            if (!sleep(backoff)) {
                break;
            }
            backoff = Math.min(backoff * 2, 5_000);
        }
        LOG.warning(() -> "Dead letter " + letter.envelopeId() + " from " + letter.originalQueue() + " not recorded "
                + "after " + config.recordAttempts() + " attempts: parked, tried again in "
                + config.park().toMillis() + " ms");
        return DeadLetterMetrics.Outcome.PARKED;
    }

    private DeadLetterMetrics.Outcome quarantine(IncomingDeadLetter letter, RuntimeException refusal, String traceId) {
        LOG.log(
                Level.SEVERE,
                "The database refused dead letter " + letter.envelopeId() + " from " + letter.originalQueue()
                        + " as it is; recording its raw bytes, quarantined",
                refusal);
        try {
            return audit.quarantine(letter, "the database refused it as received: " + rootMessage(refusal), traceId);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Quarantining a dead letter failed: parked", e);
            return DeadLetterMetrics.Outcome.PARKED;
        }
    }

    /**
     * A data exception (class 22) or integrity violation (class 23): the same content fails every time,
     * so retrying cannot help. Everything else (connections, timeouts, locks) may pass on a retry.
     */
    static boolean refusedContent(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                return state.startsWith("22") || state.startsWith("23");
            }
        }
        return false;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void ackFailed(Exception cause) {
        LOG.log(Level.WARNING, "Ack failed on the dead-letter queue's channel; reopening it", cause);
        abortAndReopen();
    }

    private void abortAndReopen() {
        try {
            getChannel().abort();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "aborting the dead-letter channel failed", e);
        }
        reopen.run();
    }
}
