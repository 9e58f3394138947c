package dev.durability.outbox.boundary;

import dev.durability.config.control.ServiceConfig;
import jakarta.persistence.PersistenceException;

/** Turns the container's account of a refused outbox write into one that says what the caller can do. */
final class StagingRefused {
    private StagingRefused() {}

    static RuntimeException explain(PersistenceException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            // Liberty could not enlist the outbox's connection in the caller's global transaction: typically
            // a second one-phase (non-XA) resource (WTRN0062E), i.e. the caller already used another data source.
            if (message.contains("WTRN0062E") || message.contains("J2CA0030E") || message.contains("enlist:")) {
                return new IllegalStateException(
                        "OutboxStager writes through the data source its reference " + ServiceConfig.DATA_SOURCE
                                + " is bound to, which "
                                + "could not join this transaction (" + message
                                + "). This happens when the transaction already "
                                + "wrote through another non-XA data source: the event and that change could not commit "
                                + "atomically. Bind that reference to your persistence unit's data source (README, 'Adopting it in your EAR'), or "
                                + "make both data sources XA",
                        e);
            }
        }
        return e;
    }
}
