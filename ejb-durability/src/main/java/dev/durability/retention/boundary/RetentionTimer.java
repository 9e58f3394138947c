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
 * Runs the retention pruner once per {@code durability.retention.interval} on every server (an hour by default),
 * each run at a random moment of its own within the configured jitter after its interval began: servers started
 * together would otherwise run together, and the jitter spreads the runs out. When two runs still overlap, the
 * per-table advisory locks make the later one skip a table the other is pruning; runs that do not overlap find
 * little left to delete. A run that left a table with a backlog (it stopped at {@code max-rows-per-run}) is
 * followed by another after {@code durability.retention.catch-up-pause-seconds}, until every table has caught up:
 * the cap bounds one run's work, not the rate retention keeps up with (docs/decisions/0086-retention-keeps-up.md).
 * At start the server measures how far behind each table is, so the overdue gauge is known before the first run.
 * Without a container transaction: each of the pruner's DELETEs commits on its own.
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
    private static final String INTERVAL = "durability-retention-interval";
    private static final String RUN = "durability-retention-run";
    private static final String CATCH_UP = "durability-retention-catch-up";

    /**
     * Started with the application so the series exist before the first run: the pruned rows at 0, how far behind
     * each table is measured at once (in a timer of its own: a database that is down does not stop the start).
     * The interval timer is non-persistent (a server that was down missed nothing worth catching up) and its first
     * interval begins at a random moment within one interval of the start: servers redeployed more often than the
     * interval still prune, and servers started together do not begin their intervals together.
     */
    @PostConstruct
    void schedule() {
        metrics.register(service.schema(), config.interval());
        timers.createSingleActionTimer(0, new TimerConfig(MEASURE, false));
        long interval = config.interval().toMillis();
        long first = 1 + ThreadLocalRandom.current().nextLong(interval);
        timers.createIntervalTimer(first, interval, new TimerConfig(INTERVAL, false));
    }

    /**
     * An interval began (the run is scheduled after a random delay of up to
     * {@code durability.retention.jitter-seconds}, shorter than the interval); or the jittered run, a catch-up run,
     * or the measurement at start, of which a run still going when another is due is not doubled.
     */
    @Timeout
    void run(Timer timer) {
        if (INTERVAL.equals(timer.getInfo())) {
            long jitter = config.jitter().toMillis();
            long delay = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(jitter + 1);
            timers.createSingleActionTimer(delay, new TimerConfig(RUN, false));
            return;
        }
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
