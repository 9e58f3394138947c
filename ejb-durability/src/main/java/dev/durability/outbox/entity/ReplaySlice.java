package dev.durability.outbox.entity;

/**
 * What one slice of a replay job did (docs/decisions/0084-replay-as-a-job.md).
 *
 * @param seen rows of the window the slice looked at, in scope: fewer than the slice size means the window is done
 * @param restaged the published or unroutable ones among them, now pending again with publication + 1
 * @param lastCreatedAt the created_at of the last row looked at, as PostgreSQL writes it (exact to the
 *     microsecond), or null when the slice looked at none
 * @param lastId that row's id, or null
 */
public record ReplaySlice(Long seen, Long restaged, String lastCreatedAt, String lastId) {

    /** The pending rows the slice left alone. */
    public long pending() {
        return seen - restaged;
    }
}
