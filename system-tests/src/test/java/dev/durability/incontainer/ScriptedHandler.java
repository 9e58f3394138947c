package dev.durability.incontainer;

import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.PermanentFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler that writes its effect, then fails its first {@code failures} calls (after the database
 * work, before commit), transiently or permanently; it runs {@code duringCall} on every call.
 */
final class ScriptedHandler implements EventHandler {
    private final String consumer;
    private final HandlerEffects effects;
    private final int failures;
    private final boolean permanent;
    private final Runnable duringCall;
    private final AtomicInteger calls = new AtomicInteger();
    private final List<Instant> callTimes = new ArrayList<>();

    ScriptedHandler(String consumer, HandlerEffects effects, int failures, boolean permanent, Runnable duringCall) {
        this.consumer = consumer;
        this.effects = effects;
        this.failures = failures;
        this.permanent = permanent;
        this.duringCall = duringCall;
    }

    static ScriptedHandler succeeding(String consumer, HandlerEffects effects) {
        return new ScriptedHandler(consumer, effects, 0, false, () -> {});
    }

    @Override
    public void handle(EventEnvelope event) {
        synchronized (callTimes) {
            callTimes.add(Instant.now());
        }
        effects.record(consumer, event.id());
        duringCall.run();
        int call = calls.incrementAndGet();
        if (call <= failures) {
            if (permanent) {
                throw new PermanentFailure("scripted permanent failure on call " + call);
            }
            throw new IllegalStateException("scripted failure on call " + call + " after the database work");
        }
    }

    List<Instant> callTimes() {
        synchronized (callTimes) {
            return List.copyOf(callTimes);
        }
    }
}
