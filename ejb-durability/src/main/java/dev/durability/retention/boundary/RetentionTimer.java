package dev.durability.retention.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.retention.control.RetentionConfig;
import dev.durability.retention.control.RetentionMetrics;
import dev.durability.retention.control.RetentionPruner;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * Runs the retention pruner once an hour on every server, each at a random moment of its own within the
 * configured jitter: the schedule fires on the wall clock, at the same minute on every replica, and the
 * jitter spreads the runs out. When two runs still overlap, the per-table advisory locks make the later one
 * skip a table the other is pruning; runs that do not overlap find little left to delete. Without a
 * container transaction: each of the pruner's DELETEs commits on its own.
 */
@Singleton
@Startup
@DependsOn({"ConfigurationCheck", "SchemaMigration"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RetentionTimer {
    @Resource
    TimerService timers;

    @Inject
    RetentionConfig config;

    @Inject
    RetentionMetrics metrics;

    @Inject
    ServiceConfig service;

    @Resource(lookup = "jdbc/durability")
    DataSource dataSource;

    private final AtomicBoolean running = new AtomicBoolean();

    /** Started with the application so the pruned-rows series exist, at 0, before the first run. */
    @PostConstruct
    void registerMetrics() {
        metrics.register(service.schema());
    }

    /**
     * Every hour at minute 7, non-persistent (a server that was down missed nothing worth catching up), no
     * transaction: schedules the run itself after a random delay of up to {@code durability.retention.jitter-seconds}.
     */
    @Schedule(minute = "7", hour = "*", persistent = false, info = "durability-retention-hourly")
    void hourly() {
        long jitter = config.jitter().toMillis();
        long delay = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(jitter + 1);
        timers.createSingleActionTimer(delay, new TimerConfig("durability-retention-run", false));
    }

    /** The jittered run; a run still going when the next one is due (a huge backlog) is not doubled. */
    @Timeout
    void run() {
        if (running.compareAndSet(false, true)) {
            try {
                new RetentionPruner(dataSource, service.schema(), metrics).prune(config.plan());
            } finally {
                running.set(false);
            }
        }
    }
}
