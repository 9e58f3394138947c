package dev.durability.broker.control;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.SocketConfigurator;
import dev.durability.config.control.ServiceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.Socket;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLSocketFactory;

/**
 * This server's connection to RabbitMQ, opened on first use and reopened on the next use after it
 * broke. The client's automatic recovery stays off: every caller already retries on its own schedule
 * (the drain on its next tick), and a half-recovered connection would hide a broker outage from it.
 */
@ApplicationScoped
public class BrokerConnection {
    private static final Logger LOG = Logger.getLogger(BrokerConnection.class.getName());

    @Inject
    BrokerConfig config;

    @Inject
    ServiceConfig service;

    @Resource
    ManagedThreadFactory threads;

    @Resource
    ManagedExecutorService consumers;

    private volatile Connection connection;

    /** The current connection's socket: closing it is the one way to free a thread blocked writing to it. */
    private volatile Socket socket;

    /** Why the broker blocks the current connection's publishers, while it says so. */
    private volatile String blockedReason;

    /**
     * The last block the broker announced, kept across reconnects until a publish is confirmed: a new
     * connection is not told of an alarm before it publishes, so dropping a blocked connection must not
     * make the drain forget the alarm (docs/decisions/0015-broker-alarm-before-claims.md).
     */
    private volatile String lastBlock;

    /** A new channel on the (re)opened connection; the caller closes it. */
    public Channel openChannel() throws IOException, TimeoutException {
        Channel channel = connection().createChannel();
        if (channel == null) {
            throw new IOException("RabbitMQ refused a new channel: the connection's channel limit is reached");
        }
        return channel;
    }

    private synchronized Connection connection() throws IOException, TimeoutException {
        if (connection == null || !connection.isOpen()) {
            ConnectionFactory factory = factory();
            SocketConfigurator configured = factory.getSocketConfigurator();
            factory.setSocketConfigurator(opened -> {
                configured.configure(opened);
                socket = opened;
            });
            blockedReason = null;
            Connection opened =
                    factory.newConnection(config.addresses(), service.serviceName() + "@" + service.instanceName());
            // The broker blocks publishers while a memory or disk alarm lasts; the drain then waits instead
            // of claiming rows it could not publish. The live state belongs to this connection.
            opened.addBlockedListener(
                    reason -> {
                        blockedReason = reason;
                        lastBlock = reason;
                    },
                    () -> {
                        blockedReason = null;
                        lastBlock = null;
                    });
            opened.addShutdownListener(cause -> blockedReason = null);
            connection = opened;
            LOG.info(() -> "Connected to RabbitMQ at " + opened.getAddress().getHostAddress() + ":" + opened.getPort()
                    + config.virtualHost() + (config.tls() ? " over TLS" : "") + " (of " + config.addresses() + ")");
        }
        return connection;
    }

    /**
     * A connection of its own for consuming, which the caller owns and closes. RabbitMQ blocks a
     * connection that publishes during a memory or disk alarm, and a blocked connection carries no acks
     * either: consumers must never share the publishing connection.
     */
    public Connection openConsumerConnection(String purpose) throws IOException, TimeoutException {
        // Deliveries run on managed threads that grow with the channels: the client's own pool has two
        // threads per core, and one slow handler would hold up the other queues' channels.
        return factory()
                .newConnection(
                        consumers,
                        config.addresses(),
                        service.serviceName() + "@" + service.instanceName() + " " + purpose);
    }

    private ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        if (config.tls()) {
            // The server's outbound TLS configuration (Liberty's transportSecurity: its trust store); docs/decisions/
            // 0075-broker-addresses-tls-and-credentials.md says what it does not check.
            factory.setSocketFactory(SSLSocketFactory.getDefault());
        }
        factory.setUsername(config.username());
        factory.setPassword(config.password());
        factory.setVirtualHost(config.virtualHost());
        factory.setConnectionTimeout(config.connectTimeoutMillis());
        factory.setHandshakeTimeout(config.connectTimeoutMillis());
        factory.setRequestedHeartbeat(config.heartbeatSeconds());
        // Bounds channel open, confirm.select and close: a wedged broker must not hang a drain tick.
        factory.setChannelRpcTimeout(config.connectTimeoutMillis());
        factory.setAutomaticRecoveryEnabled(false);
        factory.setTopologyRecoveryEnabled(false);
        factory.setThreadFactory(threads);
        return factory;
    }

    /**
     * Declares the events exchange (durable topic) and, when configured, its alternate exchange with a
     * queue that keeps what it receives; idempotent, so every new publishing channel may call it. An
     * existing exchange or queue declared with other arguments (say an alternate exchange set on an exchange
     * that exists without one) is refused by the broker: that is a {@link TopologyRefused} naming it and the
     * broker's reason, which stops the application's start.
     */
    public void declareTopology(Channel channel) throws IOException {
        Optional<String> alternate = config.alternateExchange();
        Map<String, Object> arguments = alternate
                .<Map<String, Object>>map(name -> Map.of("alternate-exchange", name))
                .orElse(null);
        try {
            // Each step names the permissions it needs, should the broker user lack one (docs/grants/rabbitmq.sh).
            if (alternate.isPresent()) {
                String name = alternate.get();
                TopologyRefused.refusedAccessNamed(
                        "declare the alternate exchange '" + name + "'",
                        "configure on exchange '" + name + "'",
                        () -> channel.exchangeDeclare(name, BuiltinExchangeType.FANOUT, true));
                TopologyRefused.refusedAccessNamed(
                        "declare the alternate exchange's queue '" + name + "'",
                        "configure on queue '" + name + "'",
                        () -> channel.queueDeclare(
                                name,
                                true,
                                false,
                                false,
                                config.alternateQueueQuorum() ? Map.of("x-queue-type", "quorum") : null));
                TopologyRefused.refusedAccessNamed(
                        "bind queue '" + name + "' to exchange '" + name + "'",
                        "write on queue '" + name + "' and read on exchange '" + name + "'",
                        () -> channel.queueBind(name, name, ""));
            }
            TopologyRefused.refusedAccessNamed(
                    "declare the events exchange '" + config.eventsExchange() + "'",
                    "configure on exchange '" + config.eventsExchange() + "'"
                            + alternate
                                    .map(name -> ", read on it and write on its alternate exchange '" + name + "'")
                                    .orElse(""),
                    () -> channel.exchangeDeclare(
                            config.eventsExchange(), BuiltinExchangeType.TOPIC, true, false, arguments));
        } catch (IOException e) {
            String reason = TopologyRefused.preconditionFailed(e).orElseThrow(() -> e);
            throw new TopologyRefused(
                    "RabbitMQ refused to declare the events exchange '" + config.eventsExchange() + "'"
                            + alternate
                                    .map(name -> " with alternate exchange '" + name + "'")
                                    .orElse("")
                            + " (or the alternate exchange and its queue): " + reason
                            + ". It exists with other arguments, which cannot change: unset "
                            + BrokerConfig.ALTERNATE_EXCHANGE
                            + " and give the existing exchange its alternate exchange "
                            + "by a RabbitMQ policy, or delete the exchange so it is declared again",
                    e);
        }
    }

    /** Why the broker currently blocks this connection's publishers, if it does. */
    public Optional<String> blockedReason() {
        Connection current = connection;
        return current != null && current.isOpen() ? Optional.ofNullable(blockedReason) : Optional.empty();
    }

    /** The last block announced and not yet known to be over (see {@link #lastBlock}). */
    public Optional<String> unresolvedBlock() {
        return Optional.ofNullable(lastBlock);
    }

    /** A publish was confirmed: whatever alarm was seen before is over. */
    public void publishConfirmed() {
        lastBlock = null;
    }

    /**
     * Drops the connection without waiting for the broker (it may be wedged, or have stopped reading):
     * the socket is closed first, which frees a thread blocked writing to it; the next use reconnects.
     */
    public synchronized void abort() {
        Socket current = socket;
        if (current != null) {
            try {
                current.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing the RabbitMQ socket failed", e);
            }
        }
        if (connection != null) {
            connection.abort(config.connectTimeoutMillis());
            connection = null;
        }
        socket = null;
        blockedReason = null;
    }

    /** Closes the connection; the next use reopens it. Idempotent, and run again at shutdown. */
    @PreDestroy
    public synchronized void close() {
        if (connection != null && connection.isOpen()) {
            try {
                connection.close(5_000);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.FINE, "RabbitMQ connection did not close cleanly", e);
            }
        }
    }
}
