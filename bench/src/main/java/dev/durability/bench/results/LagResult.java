package dev.durability.bench.results;

import java.util.List;

/**
 * Publish lag at offered loads: orders placed through the API and events staged in SQL, from the commit to the
 * arrival at a consumer of its own and (through the API) to the demo consumer's effect.
 *
 * @param apiThroughput the orders API's unkeyed throughput with 8 clients, measured first
 * @param halfRate the API load at half that throughput
 * @param profile one more run at 500 events/s in SQL, the server's round trips and garbage collections timed
 * @param errors what the load clients could not commit, if anything
 */
public record LagResult(
        Machine machine,
        int seconds,
        double apiThroughput,
        int halfRate,
        List<LagLoad> loads,
        LagProfile profile,
        String errors) {

    /** Where a load is offered: through the orders API, or staged in SQL one event per transaction. */
    public enum Path {
        API,
        SQL
    }

    /**
     * One offered load.
     *
     * @param arrival commit to arrival at a plain queue bound to the event type
     * @param effect commit to the demo consumer's effect; API loads only
     */
    public record LagLoad(Path path, int offered, int committed, int arrived, Percentiles arrival, Effect effect) {

        /** Whether every event committed arrived, and (through the API) every order was shipped and announced. */
        public boolean complete() {
            return arrived == committed
                    && (effect == null || effect.shipped() == committed && effect.announced() == committed);
        }
    }

    /**
     * The demo consumer's effect, its shipments row committed, bracketed: it committed after its transaction began
     * (the row's created_at) and before the {@code shipment.created} staged in the same transaction arrived at a plain
     * queue (which adds that event's own publish lag).
     */
    public record Effect(int shipped, Percentiles begun, int announced, Percentiles announcedAt) {}

    /** Where the time goes at 500 events/s: the drain's claims and stamps, every round trip, the pauses. */
    public record LagProfile(
            int committed,
            RoundTrips claimStatements,
            RoundTrips claimCommits,
            RoundTrips stamps,
            RoundTrips all,
            double machineBusy,
            GcPauses gc) {}

    /** The load of this path at this rate, if it ran. */
    public LagLoad load(Path path, int offered) {
        return loads.stream()
                .filter(l -> l.path() == path && l.offered() == offered)
                .findFirst()
                .orElse(null);
    }
}
