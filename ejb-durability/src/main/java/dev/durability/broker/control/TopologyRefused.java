package dev.durability.broker.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Optional;

/**
 * The broker refused a declaration because an existing queue or exchange differs (PRECONDITION_FAILED): no
 * retry can fix it, so it stops the application's start with the broker's reason instead of passing for an
 * unreachable broker.
 */
public class TopologyRefused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public TopologyRefused(String message, Throwable cause) {
        super(message, cause);
    }

    /** The broker's reply text when this failed declaration was refused as inequivalent, else empty. */
    public static Optional<String> preconditionFailed(IOException declaration) {
        if (declaration.getCause() instanceof ShutdownSignalException signal
                && signal.getReason() instanceof AMQP.Channel.Close close
                && close.getReplyCode() == AMQP.PRECONDITION_FAILED) {
            return Optional.of(close.getReplyText());
        }
        return Optional.empty();
    }
}
