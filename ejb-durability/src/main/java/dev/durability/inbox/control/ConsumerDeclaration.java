package dev.durability.inbox.control;

import dev.durability.inbox.InboxConsumer;
import dev.durability.inbox.PermanentFailure;
import jakarta.enterprise.inject.spi.Bean;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One {@link InboxConsumer} as found on a bean at deployment, checked: a declaration that could not
 * work (a bad queue name, no event types, a bean that is no handler) fails the deployment.
 */
public record ConsumerDeclaration(
        String queue,
        List<String> eventTypes,
        int prefetch,
        int concurrency,
        int maxAttempts,
        InboxConsumer.QueueType queueType,
        List<Class<? extends Throwable>> permanentFailures,
        Bean<?> handler) {

    /**
     * RabbitMQ queue names are up to 255 bytes; the delay queues add a suffix, and an occurrence token
     * (at most 256 bytes) holds the name with an envelope id and more: 150 characters leave room for both.
     */
    static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,149}");

    static final Pattern BINDING = Pattern.compile("([a-z0-9_]+|\\*|#)(\\.([a-z0-9_]+|\\*|#))*");

    /** Retry levels are queues of their own: more than this many attempts would be a topology of its own. */
    public static final int MOST_ATTEMPTS = 10;

    public ConsumerDeclaration {
        eventTypes = List.copyOf(eventTypes);
        permanentFailures = List.copyOf(permanentFailures);
    }

    /** The declaration on {@code type}, or the problems that make it unusable. */
    static ConsumerDeclaration of(InboxConsumer consumer, Class<?> type, Bean<?> bean, List<String> problems) {
        String where = "@InboxConsumer on " + type.getName() + ": ";
        if (!QUEUE.matcher(consumer.queue()).matches() || consumer.queue().startsWith("amq.")) {
            problems.add(where + "queue '" + consumer.queue()
                    + "' must be 1-150 letters, digits, '.', '_', ':' or '-', " + "not starting with 'amq.'");
        }
        if (consumer.eventTypes().length == 0) {
            problems.add(where + "eventTypes is empty: name the event types this consumer handles");
        }
        for (String eventType : consumer.eventTypes()) {
            if (!BINDING.matcher(eventType).matches()) {
                problems.add(where + "event type '" + eventType + "' is no routing key pattern (dotted lower-case "
                        + "words, '*' or '#')");
            }
        }
        if (consumer.prefetch() < 0 || consumer.prefetch() > 1000) {
            problems.add(where + "prefetch must be 0 (the configured default) to 1000, was " + consumer.prefetch());
        }
        if (consumer.concurrency() < 0 || consumer.concurrency() > 64) {
            problems.add(where + "concurrency must be 0 (the configured default) to 64, was " + consumer.concurrency());
        }
        if (consumer.maxAttempts() < 0 || consumer.maxAttempts() > MOST_ATTEMPTS) {
            problems.add(where + "maxAttempts must be 0 (the configured default) to " + MOST_ATTEMPTS + ", was "
                    + consumer.maxAttempts());
        }
        if (!dev.durability.inbox.EventHandler.class.isAssignableFrom(type)) {
            problems.add(where + "the bean must implement dev.durability.inbox.EventHandler");
        }
        List<Class<? extends Throwable>> permanent = new ArrayList<>(List.of(consumer.permanentFailures()));
        permanent.add(PermanentFailure.class);
        return new ConsumerDeclaration(
                consumer.queue(),
                List.of(consumer.eventTypes()),
                consumer.prefetch(),
                consumer.concurrency(),
                consumer.maxAttempts(),
                consumer.queueType(),
                permanent,
                bean);
    }

    /** Whether this failure of the handler is one no retry can cure. */
    public boolean isPermanent(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            for (Class<? extends Throwable> type : permanentFailures) {
                if (type.isInstance(cause)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The handler's class, for logs. */
    public String handlerName() {
        return handler.getBeanClass().getName();
    }
}
