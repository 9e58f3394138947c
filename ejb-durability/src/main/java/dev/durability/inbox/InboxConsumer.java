package dev.durability.inbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a bean as the consumer of one queue, the way {@code @MessageDriven} declares a listener: put
 * it on a CDI bean (or EJB) of any module of the EAR that implements {@link EventHandler}. At start-up
 * the queue is declared, bound to the events exchange for these event types and to the dead-letter
 * exchange, and consumed with manual acks; the handler sees only envelopes, never AMQP.
 *
 * <pre>{@code
 * @ApplicationScoped
 * @InboxConsumer(queue = "billing.orders", eventTypes = "order.placed")
 * public class BillOrders implements EventHandler {
 *     public void handle(EventEnvelope event) { ... }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface InboxConsumer {

    /** The durable queue this consumer owns; also the inbox's key and the dead letters' {@code dlq.<queue>}. */
    String queue();

    /** The event types bound to the queue (routing keys on the events exchange; {@code *} and {@code #} allowed). */
    String[] eventTypes();

    /** Unacknowledged deliveries per channel; 0 takes {@code durability.inbox.prefetch}. */
    int prefetch() default 0;

    /** Channels consuming the queue on each server, each handling one delivery at a time; 0 takes {@code durability.inbox.concurrency}. */
    int concurrency() default 0;

    /** Attempts before a transient failure is dead-lettered; 0 takes {@code durability.inbox.max-attempts}. */
    int maxAttempts() default 0;

    /**
     * Classic or quorum (a replicated queue on a RabbitMQ cluster); {@link QueueType#CONFIGURED} takes
     * {@code durability.inbox.queue-type} (classic unless configured), so an operator can choose without a new build.
     */
    QueueType queueType() default QueueType.CONFIGURED;

    /**
     * Exceptions of the handler that no retry can cure (besides {@link PermanentFailure}): the
     * delivery is dead-lettered at once.
     */
    Class<? extends Throwable>[] permanentFailures() default {};

    enum QueueType {
        CLASSIC,
        QUORUM,
        /** Whatever {@code durability.inbox.queue-type} says: the deployment decides. */
        CONFIGURED
    }
}
