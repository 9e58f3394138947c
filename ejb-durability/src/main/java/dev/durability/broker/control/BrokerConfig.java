package dev.durability.broker.control;

import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Where RabbitMQ is and what the event exchange is called: {@code durability.broker.*}. */
@ApplicationScoped
public class BrokerConfig {
    static final String HOST = "durability.broker.host";
    static final String PORT = "durability.broker.port";
    static final String VIRTUAL_HOST = "durability.broker.virtual-host";
    static final String CONNECT_TIMEOUT = "durability.broker.connect-timeout-ms";
    static final String HEARTBEAT = "durability.broker.heartbeat-seconds";
    static final String EVENTS_EXCHANGE = "durability.broker.events-exchange";

    @Inject
    @ConfigProperty(name = HOST)
    String host;

    @Inject
    @ConfigProperty(name = PORT)
    int port;

    @Inject
    @ConfigProperty(name = "durability.broker.username")
    String username;

    @Inject
    @ConfigProperty(name = "durability.broker.password")
    String password;

    @Inject
    @ConfigProperty(name = VIRTUAL_HOST)
    String virtualHost;

    @Inject
    @ConfigProperty(name = CONNECT_TIMEOUT)
    int connectTimeoutMillis;

    @Inject
    @ConfigProperty(name = HEARTBEAT)
    int heartbeatSeconds;

    @Inject
    @ConfigProperty(name = EVENTS_EXCHANGE)
    String eventsExchange;

    public void validate() {
        InvalidConfigurationException.check(!host.isBlank(), HOST, host, "must name a host");
        InvalidConfigurationException.checkRange(PORT, port, 1, 65535);
        InvalidConfigurationException.check(!virtualHost.isBlank(), VIRTUAL_HOST, virtualHost, "must not be blank");
        InvalidConfigurationException.checkRange(CONNECT_TIMEOUT, connectTimeoutMillis, 100, 120_000);
        // Heartbeats are how a half-open link is noticed while the drain writes to it: they stay on.
        InvalidConfigurationException.checkRange(HEARTBEAT, heartbeatSeconds, 1, 600);
        InvalidConfigurationException.check(eventsExchange.matches("[A-Za-z0-9._:-]{1,255}")
                        && !eventsExchange.startsWith("amq."), EVENTS_EXCHANGE, eventsExchange,
                "must be an exchange name of letters, digits, '.', '_', ':' or '-', not starting with 'amq.'");
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    public String virtualHost() {
        return virtualHost;
    }

    /**
     * The longest a drain can hold a claim before it stamps. The channel is open before the claim, so
     * this is the confirm wait plus closing a failed batch's channel (an RPC bounded by the connect
     * timeout), with the same again as margin for writing the batch.
     */
    public long worstPublishRoundMillis(long confirmTimeoutMillis) {
        return 2L * connectTimeoutMillis + confirmTimeoutMillis;
    }

    public int connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    public int heartbeatSeconds() {
        return heartbeatSeconds;
    }

    public String eventsExchange() {
        return eventsExchange;
    }

    @Override
    public String toString() {
        return "broker " + username + "@" + host + ":" + port + virtualHost + " exchange " + eventsExchange;
    }
}
