package dev.durability.bench.noop;

import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.InboxConsumer;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A handler that does nothing, so a delivery costs only the inbox's own work (one row and one commit per message):
 * the figure to set beside a bare consumer committing one row.
 */
@ApplicationScoped
@InboxConsumer(queue = NoopConsumer.QUEUE, eventTypes = NoopConsumer.EVENT_TYPE)
public class NoopConsumer implements EventHandler {
    public static final String QUEUE = "bench.noop";
    public static final String EVENT_TYPE = "bench.noop";

    @Override
    public void handle(EventEnvelope event) {
        // the inbox row is the whole effect
    }
}
