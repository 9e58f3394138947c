package dev.durability.bench.load;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The events a load committed: when (nanoTime, for the lag to an arrival on the same clock; and the wall clock in
 * microseconds, for the lag to a row the database stamped), by id, and how many it could not commit.
 */
public final class Commits {
    private final Map<String, Long> nanos = new ConcurrentHashMap<>();
    private final Map<String, Long> wallMicros = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();

    public void committed(String id) {
        nanos.put(id, System.nanoTime());
        java.time.Instant now = java.time.Instant.now();
        wallMicros.put(id, now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
    }

    public void refused() {
        refused.incrementAndGet();
    }

    public Map<String, Long> nanos() {
        return nanos;
    }

    public Map<String, Long> wallMicros() {
        return wallMicros;
    }

    public long refusedCount() {
        return refused.get();
    }
}
