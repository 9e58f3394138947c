package dev.durability.outbox.control;

import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The confirm bookkeeping of one batch on one channel: which sequence number carries which event,
 * and what the broker said about each. An event counts as confirmed only when the broker acked its
 * own sequence number (alone or in a {@code multiple} ack); a return before the ack makes it
 * unroutable; a nack, a timeout or the channel closing fails it. Listener callbacks arrive on the
 * connection's thread, hence the monitor.
 */
class PublisherConfirms implements ConfirmListener {
    private final NavigableMap<Long, UUID> outstanding = new TreeMap<>();
    private final Map<UUID, PublishOutcome> outcomes = new HashMap<>();
    private final Map<UUID, String> returned = new HashMap<>();
    private String closedBecause;
    private boolean timedOut;

    synchronized void sending(long sequenceNumber, UUID id) {
        outstanding.put(sequenceNumber, id);
    }

    /** The message with this sequence number never left: the channel refused it before taking the number. */
    synchronized void notSent(long sequenceNumber) {
        outstanding.remove(sequenceNumber);
    }

    synchronized void returned(Return message) {
        String messageId = message.getProperties().getMessageId();
        if (messageId != null) {
            returned.put(
                    UUID.fromString(messageId),
                    "unroutable: " + message.getReplyCode() + " "
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
        Map<Long, UUID> settled = multiple
                ? outstanding.headMap(deliveryTag, true)
                : outstanding.subMap(deliveryTag, true, deliveryTag, true);
        for (UUID id : settled.values()) {
            String unroutable = returned.get(id);
            outcomes.put(
                    id,
                    !ack
                            ? PublishOutcome.rejected(id, "nacked by the broker")
                            : unroutable != null
                                    ? PublishOutcome.unroutable(id, unroutable)
                                    : PublishOutcome.confirmed(id));
        }
        settled.clear();
        notifyAll();
    }

    /** The channel closed: whatever is still outstanding can no longer be confirmed. */
    synchronized void closed(ShutdownSignalException cause) {
        if (closedBecause == null) {
            closedBecause = "channel closed before confirm: " + cause.getMessage();
        }
        notifyAll();
    }

    /** Waits until every sent event is settled, the channel closed, or the deadline passed; then fails the rest. */
    synchronized void await(long deadlineNanos) throws InterruptedException {
        while (!outstanding.isEmpty() && closedBecause == null) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                timedOut = true;
                failOutstanding("no publisher confirm before the publish round's deadline");
                return;
            }
            wait(Math.max(1, remaining / 1_000_000));
        }
        if (closedBecause != null) {
            failOutstanding(closedBecause);
        }
    }

    /** Whether the broker still owed confirms when the wait ran out. */
    synchronized boolean timedOut() {
        return timedOut;
    }

    synchronized void failOutstanding(String reason) {
        for (UUID id : outstanding.values()) {
            outcomes.put(id, PublishOutcome.failed(id, reason));
        }
        outstanding.clear();
    }

    /** Events never handed to the channel fail with this reason; those already sent still await their confirm. */
    synchronized void failUnsent(Collection<UUID> ids, String reason) {
        for (UUID id : ids) {
            if (!outstanding.containsValue(id) && !outcomes.containsKey(id)) {
                outcomes.put(id, PublishOutcome.failed(id, reason));
            }
        }
    }

    /** Events never handed to the channel because the broker blocks publishers: handed back, not failed. */
    synchronized void holdUnsent(Collection<UUID> ids, String reason) {
        for (UUID id : ids) {
            if (!outstanding.containsValue(id) && !outcomes.containsKey(id)) {
                outcomes.put(id, PublishOutcome.held(id, reason));
            }
        }
    }

    /** One outcome per event; an event without one (never sent) fails. */
    synchronized Map<UUID, PublishOutcome> outcomes(Collection<UUID> ids) {
        Map<UUID, PublishOutcome> result = new HashMap<>();
        for (UUID id : ids) {
            result.put(
                    id,
                    outcomes.getOrDefault(
                            id,
                            PublishOutcome.failed(
                                    id,
                                    closedBecause != null
                                            ? closedBecause
                                            : "not sent: the channel failed earlier in the batch")));
        }
        return result;
    }
}
