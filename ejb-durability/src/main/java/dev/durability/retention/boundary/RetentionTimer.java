package dev.durability.retention.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.retention.control.RetentionConfig;
import dev.durability.retention.control.RetentionMetrics;
import dev.durability.retention.control.RetentionPruner;
import dev.durability.retention.control.TablePruning;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
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
 * skip a table the other is pruning; runs that do not overlap find little left to delete. A run that left a
 * table with a backlog (it stopped at {@code max-rows-per-run}) is followed by another after
 * {@code durability.retention.catch-up-pause-seconds}, until every table has caught up: the cap bounds one run's
 * work, not the rate retention keeps up with (docs/decisions/0086-retention-keeps-up.md). At start the server
 * measures how far behind each table is, so the overdue gauge is known before the first run. Without a
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

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    private final AtomicBoolean running = new AtomicBoolean();

    private static final String MEASURE = "durability-retention-measure";
    private static final String RUN = "durability-retention-run";
    private static final String CATCH_UP = "durability-retention-catch-up";

    /**
     * Started with the application so the series exist before the first run: the pruned rows at 0, how far behind
     * each table is measured at once (in a timer of its own: a database that is down does not stop the start).
     */
    @PostConstruct
    void registerMetrics() {
        metrics.register(service.schema());
        timers.createSingleActionTimer(0, new TimerConfig(MEASURE, false));
    }

    /**
     * Every hour at minute 7, non-persistent (a server that was down missed nothing worth catching up), no
     * transaction: schedules the run itself after a random delay of up to {@code durability.retention.jitter-seconds}.
     */
    @Schedule(minute = "7", hour = "*", persistent = false, info = "durability-retention-hourly")
    void hourly() {
        long jitter = config.jitter().toMillis();
        long delay = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(jitter + 1);
        timers.createSingleActionTimer(delay, new TimerConfig(RUN, false));
    }

    /**
     * The jittered run, a catch-up run, or the measurement at start; a run still going when another is due is
     * not doubled.
     */
    @Timeout
    void run(Timer timer) {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        boolean backlogLeft = false;
        try {
            RetentionPruner pruner = new RetentionPruner(dataSource, service.schema(), metrics);
            if (MEASURE.equals(timer.getInfo())) {
                pruner.measure(config.plan());
            } else {
                backlogLeft = TablePruning.backlogLeft(pruner.prune(config.plan()));
            }
        } finally {
            running.set(false);
        }
        if (backlogLeft) {
            // Scheduled after this run let go, or the catch-up could find it still running and skip.
            timers.createSingleActionTimer(config.catchUpPause().toMillis(), new TimerConfig(CATCH_UP, false));
        }
    }
}
