package dev.durability.broker.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Optional;

/**
 * The broker refused a declaration or binding that no retry can fix: an existing queue or exchange differs
 * (PRECONDITION_FAILED), or this service's broker user lacks a permission (ACCESS_REFUSED). It stops the
 * application's start with the broker's reason, and for a refused access the permission needed, instead of
 * passing for an unreachable broker.
 */
public class TopologyRefused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** A declaration or binding on a channel, which the broker may refuse. */
    @FunctionalInterface
    public interface BrokerOperation {
        void run() throws IOException;
    }

    public TopologyRefused(String message, Throwable cause) {
        super(message, cause);
    }

    /** The broker's reply text when this failed declaration was refused as inequivalent, else empty. */
    public static Optional<String> preconditionFailed(IOException declaration) {
        return replyText(declaration, AMQP.PRECONDITION_FAILED);
    }

    /** The broker's reply text when this failed operation was refused for want of a permission, else empty. */
    public static Optional<String> accessRefused(IOException operation) {
        return replyText(operation, AMQP.ACCESS_REFUSED);
    }

    /**
     * Runs {@code operation}; when the broker refuses it for want of a permission, fails with a {@link
     * TopologyRefused} naming what was attempted and the permission it needs (the broker's reply names only the
     * resource and the user). Other failures pass as they are.
     *
     * @param attempted what the operation does, e.g. "declare queue 'orders.shipments'"
     * @param needed the permissions it needs, e.g. "configure on queue 'orders.shipments'"
     */
    public static void refusedAccessNamed(String attempted, String needed, BrokerOperation operation)
            throws IOException {
        try {
            operation.run();
        } catch (IOException e) {
            Optional<String> refused = accessRefused(e);
            if (refused.isPresent()) {
                throw new TopologyRefused(
                        "RabbitMQ refused to " + attempted + ": " + refused.get() + ". This service's broker user "
                                + "needs " + needed + " (docs/grants/rabbitmq.sh, docs/operations.md#least-privileges)",
                        e);
            }
            throw e;
        }
    }

    private static Optional<String> replyText(IOException failure, int replyCode) {
        if (failure.getCause() instanceof ShutdownSignalException signal
                && signal.getReason() instanceof AMQP.Channel.Close close
                && close.getReplyCode() == replyCode) {
            return Optional.of(close.getReplyText());
        }
        return Optional.empty();
    }
}
