package dev.durability.outbox.control;

import dev.durability.config.control.ServiceConfig;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.OutboxStatus;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * The outbox's signals on {@code /metrics}, each tagged with the service. Counters, the lag histogram and the
 * drain's last tick are this server's own; the gauges read the shared table, so every server reports the same
 * depth. The lag's buckets are set in the library's microprofile-config.properties, and liveness is a
 * timestamp (docs/decisions/0072-latency-histograms-and-liveness-timestamps.md).
 */
@ApplicationScoped
public class OutboxMetrics {
    private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());
    /** Scrapes within this long share one status query. */
    private static final Duration STATUS_PERIOD = Duration.ofSeconds(2);
    /** No status count reads more rows than this; a gauge at this value means "at least". */
    public static final int STATUS_COUNT_CAP = 100_000;

    @Inject
    MetricRegistry registry;

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    OutboxConfig config;

    @Inject
    ServiceConfig service;

    private Counter published;
    private Counter failed;
    private Counter unroutable;
    private Counter leaseRecoveries;
    private Counter tickFailures;
    private Timer publishLag;
    private final Map<DrainStep, Timer> steps = new EnumMap<>(DrainStep.class);
    private final ShortLivedValue<Status> status =
            new ShortLivedValue<>(this::readStatus, STATUS_PERIOD, System::nanoTime);
    private volatile long lastTickNanos = System.nanoTime();
    private volatile long lastTickEpochMillis = System.currentTimeMillis();
    private Tag source;

    /** Registers at start-up, so an idle server reports its gauges (and the alert rules see them) from the first scrape. */
    void registerAtStartup(@Observes @Initialized(ApplicationScoped.class) Object application) {
        LOG.fine("Outbox metrics registered");
    }

    @PostConstruct
    void register() {
        source = new Tag(ServiceConfig.METRIC_LABEL, service.serviceName());
        published = counter(
                "durability_outbox_published", "Outbox rows the broker confirmed and the drain stamped published");
        failed = counter(
                "durability_outbox_publish_failures",
                "Publish attempts that failed (broker unreachable, nack, confirm timeout); the row is retried with backoff");
        unroutable = counter(
                "durability_outbox_unroutable",
                "Confirmed messages the broker returned because no queue is bound for their event type");
        leaseRecoveries = counter(
                "durability_outbox_lease_recoveries",
                "Rows claimed again after an earlier claim's lease expired (a worker died or stalled)");
        tickFailures = counter(
                "durability_outbox_drain_tick_failures",
                "Drain ticks that ended with an error (the database unreachable, a stamp given up on); a failing "
                        + "drain shows here, a hung one in durability_outbox_drain_last_tick_timestamp_seconds");
        publishLag = registry.timer(
                metadata(
                        "durability_outbox_publish_lag",
                        "Time from staging (created_at) to the row being stamped published after the broker's confirm, on the database clock",
                        MetricUnits.SECONDS),
                source);
        for (DrainStep step : DrainStep.values()) {
            steps.put(
                    step,
                    registry.timer(
                            metadata(
                                    "durability_outbox_drain_step",
                                    "Time one batch spent in a step of this server's drain: claim and stamp (each a "
                                            + "transaction), send (writing its messages), confirm (waiting for the "
                                            + "broker's confirms)",
                                    MetricUnits.SECONDS),
                            new Tag("step", step.label()),
                            source));
        }
        // A timestamp, not an age (Prometheus's convention for liveness): the value says when the tick ended, and a
        // rule or panel ages it on Prometheus's clock, time() - x, at any evaluation between scrapes.
        registry.gauge(
                metadata(
                        "durability_outbox_drain_last_tick_timestamp",
                        "When this server's drain last ended a tick, successful or not, in seconds since the epoch: "
                                + "stops moving only when its drain hangs",
                        MetricUnits.SECONDS),
                this,
                metrics -> metrics.lastTickEpochMillis / 1e3,
                source);
        gauge(
                "durability_outbox_depth",
                "Pending outbox rows: neither published nor returned unroutable",
                MetricUnits.NONE,
                Status::depth);
        gauge(
                "durability_outbox_oldest_pending_age",
                "Age of the oldest unpublished outbox row (0 when none)",
                MetricUnits.SECONDS,
                Status::oldestPendingSeconds);
        gauge(
                "durability_outbox_unpublished_beyond_grace",
                "Unpublished outbox rows older than durability.outbox.pending-grace-seconds: should always be 0",
                MetricUnits.NONE,
                Status::beyondGrace);
        gauge(
                "durability_outbox_rows_with_errors",
                "Unpublished outbox rows whose last publish attempt failed",
                MetricUnits.NONE,
                Status::withErrors);
        gauge(
                "durability_outbox_unroutable_rows",
                "Outbox rows the broker returned as unroutable (no queue bound), kept apart until re-staged",
                MetricUnits.NONE,
                Status::unroutable);
    }

    public void published(List<Double> lagSeconds) {
        published.inc(lagSeconds.size());
        lagSeconds.forEach(lag -> publishLag.update(Duration.ofMillis(Math.max(0, Math.round(lag * 1000)))));
    }

    /** A batch spent this long in a step of the drain. */
    public void stepTook(DrainStep step, long nanos) {
        steps.get(step).update(Duration.ofNanos(nanos));
    }

    /** How long ago this server's drain last ended a tick, successful or not. */
    public Duration sinceLastTick() {
        return Duration.ofNanos(System.nanoTime() - lastTickNanos);
    }

    /** A tick ended, whether it succeeded or not: only a hung drain stops calling this. */
    public void tickEnded() {
        lastTickNanos = System.nanoTime();
        lastTickEpochMillis = System.currentTimeMillis();
    }

    public void tickFailed() {
        tickFailures.inc();
    }

    public void failed(long count) {
        failed.inc(count);
    }

    public void unroutable(long count) {
        unroutable.inc(count);
    }

    public void leaseRecovered(long count) {
        leaseRecoveries.inc(count);
    }

    private Counter counter(String name, String description) {
        return registry.counter(metadata(name, description, MetricUnits.NONE), source);
    }

    private void gauge(String name, String description, String unit, ToDoubleFunction<Status> value) {
        registry.gauge(
                metadata(name, description, unit), this, metrics -> value.applyAsDouble(metrics.status()), source);
    }

    private Status status() {
        return status.get();
    }

    private Status readStatus() {
        try {
            OutboxStatus read = em.createNamedQuery(OutboxEvent.PENDING_STATUS, OutboxStatus.class)
                    .setParameter(1, config.pendingGraceSeconds())
                    .setParameter(2, STATUS_COUNT_CAP)
                    .getSingleResult();
            return new Status(
                    read.depth(),
                    read.oldestPendingSeconds(),
                    read.beyondGrace(),
                    read.withErrors(),
                    read.unroutable());
        } catch (RuntimeException e) {
            // The database is unreachable: the gauges say "unknown" (NaN) and the rest of /metrics still renders.
            LOG.log(Level.FINE, "Outbox status unavailable", e);
            return new Status(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
    }

    private static Metadata metadata(String name, String description, String unit) {
        return Metadata.builder()
                .withName(name)
                .withDescription(description)
                .withUnit(unit)
                .build();
    }

    private record Status(
            double depth, double oldestPendingSeconds, double beyondGrace, double withErrors, double unroutable) {}
}
