package dev.durability.broker.control;

import com.rabbitmq.client.Address;
import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where RabbitMQ is, who this service is to it and what the event exchange is called: {@code durability.broker.*}.
 * No credentials ship (the run command's development profile sets the local broker's); a missing one stops the
 * start naming its key (docs/decisions/0075-broker-addresses-tls-and-credentials.md).
 */
@ApplicationScoped
public class BrokerConfig implements FeatureConfig {
    static final String ADDRESSES = "durability.broker.addresses";
    static final String TLS = "durability.broker.tls";
    static final String VIRTUAL_HOST = "durability.broker.virtual-host";
    static final String CONNECT_TIMEOUT = "durability.broker.connect-timeout-ms";
    static final String HEARTBEAT = "durability.broker.heartbeat-seconds";
    static final String EVENTS_EXCHANGE = "durability.broker.events-exchange";
    static final String ALTERNATE_EXCHANGE = "durability.broker.alternate-exchange";
    static final String ALTERNATE_QUEUE_TYPE = "durability.broker.alternate-queue-type";
    static final String DEAD_LETTER_EXCHANGE = "durability.broker.dead-letter-exchange";
    static final String USERNAME = "durability.broker.username";
    static final String PASSWORD = "durability.broker.password";
    static final String MAX_MESSAGE_BYTES = "durability.broker.max-message-bytes";
    private static final String EXCHANGE_NAME = "[A-Za-z0-9._:-]{1,255}";

    @Inject
    @ConfigProperty(name = ADDRESSES)
    String addresses;

    @Inject
    @ConfigProperty(name = TLS)
    boolean tls;

    @Inject
    @ConfigProperty(name = USERNAME)
    Optional<String> username;

    @Inject
    @ConfigProperty(name = PASSWORD)
    Optional<String> password;

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

    @Inject
    @ConfigProperty(name = ALTERNATE_EXCHANGE)
    Optional<String> alternateExchange;

    @Inject
    @ConfigProperty(name = ALTERNATE_QUEUE_TYPE)
    String alternateQueueType;

    @Inject
    @ConfigProperty(name = DEAD_LETTER_EXCHANGE)
    String deadLetterExchange;

    @Inject
    @ConfigProperty(name = MAX_MESSAGE_BYTES)
    int maxMessageBytes;

    @Override
    public void validate() {
        InvalidConfigurationException.check(
                validAddresses(addresses),
                ADDRESSES,
                addresses,
                "must be a comma-separated list of host or host:port (port 1-65535; [::1]:5672 for IPv6)");
        InvalidConfigurationException.check(!virtualHost.isBlank(), VIRTUAL_HOST, virtualHost, "must not be blank");
        InvalidConfigurationException.checkRange(CONNECT_TIMEOUT, connectTimeoutMillis, 100, 120_000);
        // Heartbeats are how a half-open link is noticed while the drain writes to it: they stay on.
        InvalidConfigurationException.checkRange(HEARTBEAT, heartbeatSeconds, 1, 600);
        InvalidConfigurationException.check(
                eventsExchange.matches(EXCHANGE_NAME) && !eventsExchange.startsWith("amq."),
                EVENTS_EXCHANGE,
                eventsExchange,
                "must be an exchange name of letters, digits, '.', '_', ':' or '-', not starting with 'amq.'");
        alternateExchange.ifPresent(name -> InvalidConfigurationException.check(
                name.matches(EXCHANGE_NAME) && !name.startsWith("amq.") && !name.equals(eventsExchange),
                ALTERNATE_EXCHANGE,
                name,
                "must be an exchange name of letters, digits, '.', '_', ':' or '-', not starting with 'amq.', other "
                        + "than the events exchange"));
        InvalidConfigurationException.check(
                alternateQueueType.equals("classic") || alternateQueueType.equals("quorum"),
                ALTERNATE_QUEUE_TYPE,
                alternateQueueType,
                "must be classic or quorum");
        InvalidConfigurationException.check(
                deadLetterExchange.matches(EXCHANGE_NAME)
                        && !deadLetterExchange.startsWith("amq.")
                        && !deadLetterExchange.equals(eventsExchange)
                        && !alternateExchange.orElse("").equals(deadLetterExchange),
                DEAD_LETTER_EXCHANGE,
                deadLetterExchange,
                "must be an exchange name of letters, digits, '.', '_', ':' or '-', not starting with 'amq.', other "
                        + "than the events and alternate exchanges");
        // RabbitMQ's own bounds of max_message_size: at most 512 MiB; below 64 KiB no dead letter's evidence fits.
        InvalidConfigurationException.checkRange(MAX_MESSAGE_BYTES, maxMessageBytes, 65_536, 536_870_912);
        InvalidConfigurationException.check(
                username.isPresent(),
                USERNAME,
                "",
                "is required: no broker user ships; set this service's own (DURABILITY_BROKER_USERNAME)");
        InvalidConfigurationException.check(
                password.isPresent(),
                PASSWORD,
                "",
                "is required: no broker password ships; set this service's own (DURABILITY_BROKER_PASSWORD)");
        // AMQP PLAIN carries both as short strings; a blank or control character is a typo, never a credential.
        InvalidConfigurationException.check(
                printable(username.get()), USERNAME, username.get(), "must be 1-255 printable characters");
        InvalidConfigurationException.check(
                printable(password.get()), PASSWORD, "(hidden)", "must be 1-255 printable characters");
    }

    private static boolean validAddresses(String list) {
        if (list == null || list.isBlank()) {
            return false;
        }
        try {
            for (Address address : Address.parseAddresses(list)) {
                if (address.getHost().isBlank()
                        || address.getHost().chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')
                        || (address.getPort() != -1 && (address.getPort() < 1 || address.getPort() > 65535))) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) { // a port that is not a number
            return false;
        }
    }

    private static boolean printable(String value) {
        return value != null
                && !value.isBlank()
                && value.length() <= 255
                && value.chars().noneMatch(Character::isISOControl);
    }

    /**
     * The broker's nodes (a cluster's, or one host): each new connection tries them in a random order until one
     * accepts, so a server's connections spread over the nodes and outlive any one of them. An address without a
     * port takes AMQP's (5672, or 5671 with TLS).
     */
    public List<Address> addresses() {
        return List.of(Address.parseAddresses(addresses));
    }

    /**
     * Whether connections use TLS, with the server's outbound TLS configuration (its trust store) and the broker's
     * host name verified against its certificate.
     */
    public boolean tls() {
        return tls;
    }

    public String username() {
        return username.orElseThrow();
    }

    public String password() {
        return password.orElseThrow();
    }

    public String virtualHost() {
        return virtualHost;
    }

    /**
     * An alternate exchange for the events exchange, declared with it: the broker routes every event no
     * queue is bound for there instead of returning it (docs/decisions/0012-unroutable-rows-kept-apart.md).
     */
    public Optional<String> alternateExchange() {
        return alternateExchange;
    }

    /**
     * Whether the alternate exchange's queue is a quorum queue: on a cluster a classic one lives on one node, and
     * the events it keeps would go with that node (docs/decisions/0089-cluster-and-delivery-limits.md).
     */
    public boolean alternateQueueQuorum() {
        return alternateQueueType.equals("quorum");
    }

    /** The topic exchange every consumer queue dead-letters into, under {@code dlq.<queue>}. */
    public String deadLetterExchange() {
        return deadLetterExchange;
    }

    /**
     * The largest message body the broker takes (its {@code max_message_size}, or less): a larger one closes
     * the channel it was sent on. What this service builds from a message it received (a dead-letter wrapper)
     * is kept under it (docs/decisions/0058-oversized-dead-letters.md).
     */
    public int maxMessageBytes() {
        return maxMessageBytes;
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
        return "broker " + username.orElse("(none)") + "@" + addresses + (tls ? " (TLS)" : "") + " " + virtualHost
                + " exchange " + eventsExchange
                + ", dead letters " + deadLetterExchange
                + alternateExchange
                        .map(name -> " (alternate exchange " + name + ", " + alternateQueueType + " queue)")
                        .orElse("");
    }
}
