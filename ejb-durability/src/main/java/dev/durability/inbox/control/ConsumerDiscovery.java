package dev.durability.inbox.control;

import dev.durability.inbox.InboxConsumer;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds every {@link InboxConsumer} bean of the application at deployment, in whichever module of the
 * EAR it lives, the way the container finds message-driven beans. A declaration that cannot work
 * (including two beans claiming one queue) is a deployment error naming the bean.
 */
public class ConsumerDiscovery implements Extension {
    private final Map<String, ConsumerDeclaration> byQueue = new HashMap<>();
    private final List<String> problems = new ArrayList<>();

    void found(@Observes ProcessBean<?> bean) {
        InboxConsumer consumer = bean.getAnnotated().getAnnotation(InboxConsumer.class);
        if (consumer == null) {
            return;
        }
        Class<?> type = bean.getBean().getBeanClass();
        ConsumerDeclaration declaration = ConsumerDeclaration.of(consumer, type, bean.getBean(), problems);
        ConsumerDeclaration earlier = byQueue.putIfAbsent(declaration.queue(), declaration);
        if (earlier != null && earlier.handler() != bean.getBean()) {
            problems.add("@InboxConsumer queue '" + declaration.queue() + "' is declared by both "
                    + earlier.handlerName() + " and " + type.getName() + ": a queue has one consumer");
        }
    }

    void check(@Observes AfterBeanDiscovery discovery) {
        problems.forEach(problem -> discovery.addDefinitionError(new IllegalStateException(problem)));
    }

    /** The consumers of this application, in queue order. */
    public List<ConsumerDeclaration> declarations() {
        return byQueue.values().stream()
                .sorted(java.util.Comparator.comparing(ConsumerDeclaration::queue))
                .toList();
    }
}
