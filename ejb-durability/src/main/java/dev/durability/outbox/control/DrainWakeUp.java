package dev.durability.outbox.control;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wakes this server's drain when a staging transaction committed here, without asking the database to
 * notify anyone: no notification means no cluster-wide notify lock held through every staging commit
 * (docs/decisions/0082-in-process-wake-up.md). The drain registers itself at start; until then, and on a
 * server whose drain did not start, the poll and the LISTEN connection's notifications of SQL-staged rows
 * remain.
 */
@ApplicationScoped
public class DrainWakeUp {
    private static final Logger LOG = Logger.getLogger(DrainWakeUp.class.getName());

    /** No drain to wake: before it started, after it stopped. */
    public static final Runnable NOBODY = () -> {};

    private volatile Runnable drain = NOBODY;

    /** Called by the drain at start with what wakes it (cheap, idempotent while a wake-up is outstanding). */
    public void register(Runnable wake) {
        this.drain = wake;
    }

    /** A transaction that staged events on this server committed: its rows are visible now. */
    public void stagingCommitted() {
        try {
            drain.run();
        } catch (RuntimeException e) {
            // The business transaction has committed; its rows wait for the next poll instead (a stopping drain).
            LOG.log(Level.FINE, "Waking the outbox drain after a staging commit failed; the poll finds the rows", e);
        }
    }
}
