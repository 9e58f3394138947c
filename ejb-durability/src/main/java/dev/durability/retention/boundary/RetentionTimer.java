package dev.durability.retention.boundary;

import dev.durability.retention.control.RetentionConfig;
import dev.durability.retention.control.RetentionMetrics;
import dev.durability.retention.control.RetentionPruner;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
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
 * configured jitter, so that replicas started together do not all reach for the tables at once (the
 * per-table advisory locks make the one that comes second skip a table anyway). Without a container
 * transaction: each of the pruner's DELETEs commits on its own.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RetentionTimer {
    @Resource
    TimerService timers;

    @Inject
    RetentionConfig config;

    @Inject
    RetentionMetrics metrics;

    @Resource(lookup = "jdbc/durability")
    DataSource dataSource;

    private final AtomicBoolean running = new AtomicBoolean();

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
                new RetentionPruner(dataSource, metrics).prune(config.plan());
            } finally {
                running.set(false);
            }
        }
    }
}
