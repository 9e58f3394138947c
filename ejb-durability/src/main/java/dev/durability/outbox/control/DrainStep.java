package dev.durability.outbox.control;

import java.util.Locale;

/**
 * The steps of one batch through the drain, each timed on {@code durability_outbox_drain_step_seconds}, so an
 * operator (and the benchmark) reads where a batch's time goes: the database (claim, stamp), the broker link
 * (send) or the broker's fsync (confirm).
 */
public enum DrainStep {
    /** The claim's transaction, from its begin to its commit, of a claim that took rows. */
    CLAIM,
    /** Building a claim's messages and writing them to the confirm channel. */
    SEND,
    /** The drain waiting for a sent batch's confirms, after whatever it did meanwhile. */
    CONFIRM,
    /**
     * The stamps' transaction with its retries, succeeded or given up on, on the managed executor, overlapping the
     * next claim and send; also for a batch the broker could not take, whose rows it releases.
     */
    STAMP;

    /** The value of the metric's {@code step} label. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
