package dev.durability.inbox.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import dev.durability.broker.control.BrokerConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends one message at a time on a confirm-mode channel of the publishing connection and returns only
 * once the broker confirmed it, routed: what the inbox re-publishes (a retry, a dead letter) must be
 * safe at the broker before the original is acked. One per consuming channel, used by its thread only.
 */
public class ConfirmedSend implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ConfirmedSend.class.getName());

    private final BrokerConnection broker;
    private final Duration timeout;
    private Channel channel;
    private volatile String returned;

    public ConfirmedSend(BrokerConnection broker, Duration timeout) {
        this.broker = broker;
        this.timeout = timeout;
    }

    /**
     * Publishes with the mandatory flag and waits for the confirm; a nack, a return (no queue bound), a
     * timeout or a broken link is an {@link IOException}, and the message may or may not be at the broker.
     */
    public void send(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
            throws IOException {
        try {
            Channel open = channel();
            returned = null;
            open.basicPublish(exchange, routingKey, true, properties, body);
            open.waitForConfirmsOrDie(timeout.toMillis());
            if (returned != null) {
                throw new IOException("RabbitMQ returned the message to '" + exchange + "' with key '" + routingKey
                        + "' as unroutable (" + returned + "): its queue is missing");
            }
        } catch (TimeoutException e) {
            close();
            throw new IOException("RabbitMQ did not confirm within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while waiting for RabbitMQ's confirm", e);
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    private Channel channel() throws IOException, TimeoutException {
        if (channel == null || !channel.isOpen()) {
            Channel opened = broker.openChannel();
            opened.confirmSelect();
            opened.addReturnListener(r -> returned = r.getReplyCode() + " " + r.getReplyText());
            channel = opened;
        }
        return channel;
    }

    @Override
    public void close() {
        Channel current = channel;
        channel = null;
        if (current != null && current.isOpen()) {
            try {
                current.abort();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.FINE, "closing a send channel failed", e);
            }
        }
    }
}
