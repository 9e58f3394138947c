package dev.durability.outbox.control;

import java.util.Optional;

/**
 * Whether the broker can take a batch, found out before a claim.
 *
 * @param problem why it cannot, or empty when it can
 * @param blocked whether the broker refuses publishes (a resource alarm) rather than being unreachable
 */
public record BrokerReadiness(Optional<String> problem, boolean blocked) {

    public static BrokerReadiness ready() {
        return new BrokerReadiness(Optional.empty(), false);
    }

    public static BrokerReadiness unreachable(String why) {
        return new BrokerReadiness(Optional.of("broker unreachable: " + why), false);
    }

    public static BrokerReadiness blocked(String why) {
        return new BrokerReadiness(Optional.of("broker blocked publishing: " + why), true);
    }

    public boolean isReady() {
        return problem.isEmpty();
    }
}
