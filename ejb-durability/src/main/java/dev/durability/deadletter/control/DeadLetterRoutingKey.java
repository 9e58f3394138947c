package dev.durability.deadletter.control;

/**
 * The routing keys of dead letters on the dead-letter exchange, {@code dlq.<queue>}: every consumer's
 * queue dead-letters with its own, the dead-letter queue binds them all, and the dead-letter consumer
 * reads the queue a letter came from back out of its key (docs/dead-letters.md). The dead-letter
 * feature owns the format; the inbox, which declares the queues, uses it.
 */
public final class DeadLetterRoutingKey {
    public static final String PREFIX = "dlq.";

    /** The binding of the dead-letter queue: every consumer's dead letters. */
    public static final String ALL = PREFIX + "#";

    private DeadLetterRoutingKey() {}

    /** The key a consumer's queue dead-letters with. */
    public static String of(String queue) {
        return PREFIX + queue;
    }
}
