package dev.durability.idempotency.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes this web module's filter may hold in memory at once for keyed requests: their bodies, read whole
 * to fingerprint them, and the answers held back until they commit. A request whose body does not fit is
 * answered 503 before anything of it is read or run; an answer that does not fit streams instead of waiting
 * (docs/decisions/0054-buffer-budget.md).
 */
@ApplicationScoped
public class BufferBudget {
    private final AtomicLong held = new AtomicLong();

    @Inject
    IdempotencyConfig config;

    /** Takes {@code bytes} from the budget for one request, or null when they do not fit. */
    public Reservation reserve(long bytes) {
        return tryReserve(bytes) ? new Reservation(bytes) : null;
    }

    /** One request's share of the budget: grows with its held answer, and is given back once. */
    public final class Reservation implements AutoCloseable {
        private final AtomicLong bytes;

        private Reservation(long bytes) {
            this.bytes = new AtomicLong(bytes);
        }

        /** Takes {@code more} bytes for this request if they fit. */
        public boolean grow(long more) {
            if (!tryReserve(more)) {
                return false;
            }
            bytes.addAndGet(more);
            return true;
        }

        @Override
        public void close() {
            release(bytes.getAndSet(0));
        }
    }

    private boolean tryReserve(long bytes) {
        long limit = config.bufferBudgetBytes();
        while (true) {
            long now = held.get();
            if (now + bytes > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    private void release(long bytes) {
        held.addAndGet(-bytes);
    }

    /** Bytes held now. */
    public long held() {
        return held.get();
    }
}
