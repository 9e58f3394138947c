package dev.durability.outbox.boundary;

import jakarta.persistence.PersistenceException;

/** Turns the container's account of a refused outbox write into one that says what the caller can do. */
final class StagingRefused {
    private StagingRefused() {
    }

    static RuntimeException explain(PersistenceException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            // Liberty's transaction manager: a second one-phase (non-XA) resource in one global transaction.
            if (message.contains("WTRN0062E") || message.contains("J2CA0030E")) {
                return new IllegalStateException("OutboxStager writes through the data source jdbc/durability, and this "
                        + "transaction already wrote through another non-XA data source: one transaction cannot commit "
                        + "both atomically. Put your persistence unit on jdbc/durability (see the README, 'Using the "
                        + "library'), or make both data sources XA", e);
            }
        }
        return e;
    }
}
