package dev.durability.config.boundary;

import dev.durability.config.control.FeatureConfig;
import dev.durability.config.control.ServiceConfig;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Comparator;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Validates every {@code durability.*} property before anything else starts. An exception here fails the
 * application's start, so a bad value stops the deployment with a message naming its key instead of
 * surfacing later as a misbehaving drain. Each feature states its own rules in its {@link FeatureConfig};
 * this bean only runs them, first the service's identity, then the features in a fixed order, so the
 * same bad configuration always gets the same message.
 */
@Startup
@Singleton
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ConfigurationCheck {
    private static final Logger LOG = Logger.getLogger(ConfigurationCheck.class.getName());

    @Inject
    ServiceConfig service;

    @Inject
    @Any
    Instance<FeatureConfig> features;

    @PostConstruct
    void validate() {
        service.validate();
        List<FeatureConfig> checked = features.stream()
                .sorted(Comparator.comparing(ConfigurationCheck::featureName))
                .toList();
        checked.forEach(FeatureConfig::validate);
        LOG.info(() -> "Durability configuration valid: service " + service.serviceName() + ", instance "
                + service.instanceName() + ", schema " + service.schema() + ", "
                + checked.stream().map(Object::toString).collect(Collectors.joining(", ")));
    }

    /** The configuration class's name, not the container's proxy's: a stable order across servers. */
    private static String featureName(FeatureConfig config) {
        Class<?> type = config.getClass();
        while (type.getName().contains("$")) {
            type = type.getSuperclass();
        }
        return type.getName();
    }
}
