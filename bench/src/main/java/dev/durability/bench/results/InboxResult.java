package dev.durability.bench.results;

import java.util.List;

/**
 * The inbox: the demo's shipments consumer and a no-op consumer on the server, and a bare consumer (the RabbitMQ
 * client and JDBC, one row and one commit per message) taking turns with the no-op one, round by round.
 */
public record InboxResult(
        Machine machine,
        int messages,
        double demoRate,
        List<Double> noopRates,
        List<Double> bareRates,
        List<Double> noopRatios) {

    public double bareMean() {
        return bareRates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    public double lowestNoopRatio() {
        return noopRatios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }
}
