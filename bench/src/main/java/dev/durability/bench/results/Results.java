package dev.durability.bench.results;

/**
 * Everything bench/results.json holds: each experiment's latest result, or none if it never ran. An experiment run
 * alone replaces its own entry and leaves the others as they were.
 */
public record Results(
        DrainResult drain,
        LagResult lag,
        InboxResult inbox,
        FilterResult filter,
        StagingResult staging,
        ClaimResult claim,
        SustainedResult sustained) {

    public static Results none() {
        return new Results(null, null, null, null, null, null, null);
    }

    /** These results with one experiment's replaced by {@code result}. */
    public Results with(Object result) {
        return new Results(
                result instanceof DrainResult r ? r : drain,
                result instanceof LagResult r ? r : lag,
                result instanceof InboxResult r ? r : inbox,
                result instanceof FilterResult r ? r : filter,
                result instanceof StagingResult r ? r : staging,
                result instanceof ClaimResult r ? r : claim,
                result instanceof SustainedResult r ? r : sustained);
    }
}
