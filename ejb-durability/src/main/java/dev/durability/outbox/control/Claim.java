package dev.durability.outbox.control;

import dev.durability.outbox.entity.ClaimedRow;
import java.util.List;
import java.util.UUID;

/** One claim: its token, which fences every later stamp, and the rows it holds (oldest first). */
public record Claim(UUID token, List<ClaimedRow> rows) {

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public int size() {
        return rows.size();
    }

    public long recovered() {
        return rows.stream().filter(ClaimedRow::recovered).count();
    }

    /**
     * Whether more rows were due than this claim took: it stopped at the batch size, or at the byte
     * bound before the last candidate.
     */
    public boolean moreDue(int batchSize) {
        long candidates = rows.isEmpty() ? 0 : rows.get(0).candidates();
        return candidates >= batchSize || rows.size() < candidates;
    }
}
