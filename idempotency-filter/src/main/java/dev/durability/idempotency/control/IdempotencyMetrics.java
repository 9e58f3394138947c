package dev.durability.idempotency.control;

import dev.durability.config.control.ServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The idempotency filter's signals on {@code /metrics}, this server's own, tagged with the service and the
 * web module's context root ({@code module}): two modules or applications on one server that use the filter
 * keep separate series, and undeploying one leaves the other's counters in place
 * (docs/decisions/0036-filter-metrics-per-module.md, docs/decisions/0071-service-label-on-every-metric.md).
 */
@ApplicationScoped
public class IdempotencyMetrics {
    /** Why a keyed request was refused before it claimed anything. */
    public enum Refusal {
        INVALID_KEY,
        MISSING_KEY,
        BODY_TOO_LARGE,
        BUSY;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private volatile Tag module = new Tag("module", "/");

    @Inject
    MetricRegistry registry;

    @Inject
    @ConfigProperty(name = ServiceConfig.SERVICE_NAME)
    String serviceName;

    /** Every series at 0 from the module's start, so a dashboard and an alert see them before they move. */
    void register(@Observes @Initialized(ApplicationScoped.class) Object started) {
        if (started instanceof ServletContext context
                && !context.getContextPath().isEmpty()) {
            module = new Tag("module", context.getContextPath());
        }
        claims();
        replays();
        conflicts();
        mismatches();
        sentinels();
        fencedFinalizes();
        unrecordedOutcomes();
        rollbacks();
        for (Refusal reason : Refusal.values()) {
            refusals(reason);
        }
    }

    public void claimed() {
        claims().inc();
    }

    private Counter claims() {
        return counter("durability_idempotency_claims", "Keyed requests that claimed their key and ran the handler");
    }

    public void replayed() {
        replays().inc();
    }

    private Counter replays() {
        return counter(
                "durability_idempotency_replays",
                "Keyed requests answered from the record of an earlier success, handler not run");
    }

    public void conflict() {
        conflicts().inc();
    }

    private Counter conflicts() {
        return counter(
                "durability_idempotency_conflicts",
                "Keyed requests answered 409 because another request with the key was still running");
    }

    public void mismatch() {
        mismatches().inc();
    }

    private Counter mismatches() {
        return counter(
                "durability_idempotency_mismatches",
                "Keyed requests answered 422 because the key was used for a request with another body");
    }

    public void sentinel() {
        sentinels().inc();
    }

    private Counter sentinels() {
        return counter(
                "durability_idempotency_sentinels",
                "Successes recorded without their body (over the cap, or not sent whole): replays of them "
                        + "are marked as such");
    }

    public void fenced() {
        fencedFinalizes().inc();
    }

    private Counter fencedFinalizes() {
        return counter(
                "durability_idempotency_fenced",
                "Finalizes refused because a newer claim had taken the key: the request outlived its claim");
    }

    public void unrecorded() {
        unrecordedOutcomes().inc();
    }

    private Counter unrecordedOutcomes() {
        return counter(
                "durability_idempotency_unrecorded",
                "Keyed requests whose outcome could not be written (database unreachable): a retry after "
                        + "the claim expires runs the handler again");
    }

    public void rolledBack() {
        rollbacks().inc();
    }

    private Counter rollbacks() {
        return counter(
                "durability_idempotency_rolled_back",
                "Keyed requests whose 2xx answer and effects could not commit together (fenced, rolled back, "
                        + "timed out): neither was kept, the caller got 503");
    }

    public void refused(Refusal reason) {
        refusals(reason).inc();
    }

    private Counter refusals(Refusal reason) {
        return counters.computeIfAbsent(
                "refused\u0000" + reason,
                key -> registry.counter(
                        metadata(
                                "durability_idempotency_refused",
                                "Requests refused by the idempotency filter before any claim: an invalid or "
                                        + "missing key (400), a body over the cap (413), the buffer budget "
                                        + "spent (503)"),
                        new Tag("reason", reason.label()),
                        module,
                        source()));
    }

    private Counter counter(String name, String description) {
        return counters.computeIfAbsent(name, key -> registry.counter(metadata(name, description), module, source()));
    }

    private Tag source() {
        return new Tag(ServiceConfig.METRIC_LABEL, serviceName);
    }

    private static Metadata metadata(String name, String description) {
        return Metadata.builder()
                .withName(name)
                .withDescription(description)
                .withUnit(MetricUnits.NONE)
                .build();
    }
}
