package dev.durability.outbox.control;

import java.util.List;
import java.util.UUID;

/** One claim: its token, which fences every later stamp, and the rows it holds (oldest first). */
public record Claim(UUID token, List<ClaimedEvent> events) {

    public boolean isEmpty() {
        return events.isEmpty();
    }

    public int size() {
        return events.size();
    }

    public long recovered() {
        return events.stream().filter(ClaimedEvent::recovered).count();
    }
}
