package dev.durability.config.boundary;

import dev.durability.broker.control.BrokerConfig;
import dev.durability.config.control.ServiceConfig;
import dev.durability.deadletter.control.DeadLetterConfig;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.retention.control.RetentionConfig;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Validates every {@code durability.*} property before anything else starts. An exception here fails the
 * application's start, so a bad value stops the deployment with a message naming its key instead of
 * surfacing later as a misbehaving drain.
 */
@Startup
@Singleton
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ConfigurationCheck {
    private static final Logger LOG = Logger.getLogger(ConfigurationCheck.class.getName());

    @Inject
    ServiceConfig service;

    @Inject
    BrokerConfig broker;

    @Inject
    OutboxConfig outbox;

    @Inject
    InboxConfig inbox;

    @Inject
    DeadLetterConfig deadLetters;

    @Inject
    RetentionConfig retention;

    @PostConstruct
    void validate() {
        service.validate();
        broker.validate();
        outbox.validate();
        inbox.validate();
        deadLetters.validate();
        retention.validate();
        // Dropping a failed connection closes its socket at once, then waits at most the connect timeout.
        outbox.checkLeaseOutlasts(broker.connectTimeoutMillis());
        LOG.info(() -> "Durability configuration valid: service " + service.serviceName() + ", instance "
                + service.instanceName() + ", schema " + service.schema() + ", " + outbox + ", " + inbox + ", "
                + deadLetters
                + ", " + retention + ", " + broker);
    }
}
