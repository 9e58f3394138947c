package dev.durability.bench.results;

import java.util.List;

/**
 * What staging costs the transaction it joins: at the database (pgbench), in a business transaction of realistic
 * size, at concurrent connections, and through the orders API with the drain's wake-up and without any.
 */
public record StagingResult(
        Machine machine,
        int seconds,
        int rounds,
        Cost cost,
        Business business,
        List<Concurrency> concurrency,
        List<Api> api,
        long apiErrors) {

    /**
     * The demo's order transaction without and with its event inserted by SQL, then with one part taken away at a
     * time; medians of the rounds.
     *
     * @param noiseMs the largest difference between two rounds of the same variant: a part smaller is below noise
     */
    public record Cost(
            double withoutMs,
            double withMs,
            double noNotifyMs,
            double noWalMs,
            double walBytesWithout,
            double walBytesWith,
            double outboxInsertMs,
            double commitWithoutMs,
            double commitWithMs,
            double orderInsertMs,
            double noiseMs) {

        public double addedMs() {
            return withMs - withoutMs;
        }

        public double notifyMs() {
            return withMs - noNotifyMs;
        }

        public double walMs() {
            return withMs - noWalMs;
        }

        public double restMs() {
            return addedMs() - notifyMs() - walMs();
        }
    }

    /** The order with three lines and a stock update, without and with the event as OutboxStager writes it. */
    public record Business(double withoutMs, double withMs, double ratio) {}

    /** Transactions per second at a connection count; ratios are medians of each round's ratio to unwoken. */
    public record Concurrency(
            int connections,
            double alone,
            double unwoken,
            double staged,
            double notifying,
            double stagedRatio,
            double notifyingRatio) {}

    /** Orders per second through the API at a client count, with the wake-up as shipped and without any. */
    public record Api(int clients, double woken, double unwoken, double ratio) {}

    public Concurrency at(int connections) {
        return concurrency.stream()
                .filter(c -> c.connections() == connections)
                .findFirst()
                .orElse(null);
    }

    public Api apiAt(int clients) {
        return api.stream().filter(a -> a.clients() == clients).findFirst().orElse(null);
    }
}
