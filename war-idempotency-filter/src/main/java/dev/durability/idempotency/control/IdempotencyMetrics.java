package dev.durability.idempotency.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/** The idempotency filter's signals on {@code /metrics}, this server's own. */
@ApplicationScoped
public class IdempotencyMetrics {
    /** Why a keyed request was refused before it claimed anything. */
    public enum Refusal {
        INVALID_KEY,
        MISSING_KEY,
        BODY_TOO_LARGE;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    @Inject
    MetricRegistry registry;

    public void claimed() {
        counter("durability_idempotency_claims", "Keyed requests that claimed their key and ran the handler")
                .inc();
    }

    public void replayed() {
        counter(
                        "durability_idempotency_replays",
                        "Keyed requests answered from the record of an earlier success, handler not run")
                .inc();
    }

    public void conflict() {
        counter(
                        "durability_idempotency_conflicts",
                        "Keyed requests answered 409 because another request with the key was still running")
                .inc();
    }

    public void mismatch() {
        counter(
                        "durability_idempotency_mismatches",
                        "Keyed requests answered 422 because the key was used for a request with another body")
                .inc();
    }

    public void sentinel() {
        counter(
                        "durability_idempotency_sentinels",
                        "Successes recorded without their body (over the cap, or not sent whole): replays of them "
                                + "are marked as such")
                .inc();
    }

    public void fenced() {
        counter(
                        "durability_idempotency_fenced",
                        "Finalizes refused because a newer claim had taken the key: the request outlived its claim")
                .inc();
    }

    public void unrecorded() {
        counter(
                        "durability_idempotency_unrecorded",
                        "Keyed requests whose outcome could not be written (database unreachable): a retry after "
                                + "the claim expires runs the handler again")
                .inc();
    }

    public void refused(Refusal reason) {
        counters.computeIfAbsent(
                        "refused\u0000" + reason,
                        key -> registry.counter(
                                metadata(
                                        "durability_idempotency_refused",
                                        "Requests refused by the idempotency filter before any claim: an invalid or "
                                                + "missing key (400), a body over the cap (413)"),
                                new Tag("reason", reason.label())))
                .inc();
    }

    private Counter counter(String name, String description) {
        return counters.computeIfAbsent(name, key -> registry.counter(metadata(name, description)));
    }

    private static Metadata metadata(String name, String description) {
        return Metadata.builder()
                .withName(name)
                .withDescription(description)
                .withUnit(MetricUnits.NONE)
                .build();
    }
}
