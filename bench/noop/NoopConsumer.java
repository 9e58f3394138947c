package dev.durability.bench;

import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.InboxConsumer;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The benchmark's consumer: a handler that does nothing, so a delivery costs only the inbox's own work
 * (one row and one commit per message), the figure to set beside a bare consumer committing one row.
 * Added to a copy of the EAR by bench/run; never shipped.
 */
@ApplicationScoped
@InboxConsumer(queue = "bench.noop", eventTypes = "bench.noop")
public class NoopConsumer implements EventHandler {
    @Override
    public void handle(EventEnvelope event) {
        // the inbox row is the whole effect
    }
}
