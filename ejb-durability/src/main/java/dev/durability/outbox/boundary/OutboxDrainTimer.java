package dev.durability.outbox.boundary;

import dev.durability.outbox.control.Claim;
import dev.durability.outbox.control.ConfirmedPublisher;
import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.control.OutboxMetrics;
import dev.durability.outbox.control.PublishOutcome;
import dev.durability.broker.control.BrokerConnection;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drains the outbox on every server: claim (short transaction) → publish with confirms (no transaction,
 * no row locks) → stamp (short transaction), repeated while claims come back full, within a time budget.
 *
 * <p>Timer: a non-persistent interval timer, every {@code durability.outbox.poll-interval-ms} (default
 * 1 s), created at start-up; bean-managed transactions, so the publish step runs outside any
 * transaction and each claim and stamp commits on its own. A tick that finds the previous one still
 * running returns at once: ticks never overlap on one server. A tick that used up its time budget
 * while claims still came back full schedules a one-off continuation at once, so a backlog drains
 * without waiting for the next interval while no single tick runs unbounded.
 */
@Startup
@Singleton
@DependsOn({"ConfigurationCheck", "SchemaMigration"})
@TransactionManagement(TransactionManagementType.BEAN)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class OutboxDrainTimer {
    private static final Logger LOG = Logger.getLogger(OutboxDrainTimer.class.getName());

    @Resource
    TimerService timers;

    @Resource
    UserTransaction transaction;

    @Inject
    OutboxConfig config;

    @Inject
    OutboxClaims claims;

    @Inject
    ConfirmedPublisher publisher;

    @Inject
    BrokerConnection broker;

    @Inject
    OutboxMetrics metrics;

    private final AtomicBoolean draining = new AtomicBoolean();

    /** The last problem logged at WARNING; repeats of it go to FINE, so an outage is one line, not one a second. */
    private volatile String lastProblem;

    /** Only the drain (one tick at a time) touches it. */
    private final Set<String> unroutableLogged = new HashSet<>();

    @PostConstruct
    void schedule() {
        long interval = config.pollInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("durability-outbox-drain", false));
    }

    /**
     * Closes the broker connection while this bean still runs: the connection's threads come from a
     * thread factory bound to this component, and closing later would start them in a stopped one.
     */
    @PreDestroy
    void stop() {
        publisher.close();
        broker.close();
    }

    @Timeout
    void tick() {
        if (!draining.compareAndSet(false, true)) {
            return;
        }
        boolean backlogLeft = false;
        try {
            backlogLeft = drain();
            metrics.tickCompleted();
        } catch (Exception e) {
            // The rows stay claimed or pending; the lease and the next tick take it from here.
            problem("Outbox drain tick failed; it resumes on the next tick: " + e, e);
        } finally {
            draining.set(false);
        }
        if (backlogLeft) {
            // Scheduled only after this tick let go, or the continuation could find it still running and skip.
            timers.createSingleActionTimer(0, new TimerConfig("durability-outbox-drain-continuation", false));
        }
    }

    /** @return whether the backlog outlasted this tick's budget, so draining should continue at once */
    private boolean drain() throws Exception {
        long deadline = System.nanoTime() + config.tickBudget().toNanos();
        while (true) {
            Optional<String> blocked = publisher.blocked();
            if (blocked.isPresent()) {
                problem("Outbox drain paused: " + blocked.get(), null);
                return false;
            }
            Optional<String> unreachable = publisher.prepare();
            Claim claim = inTransaction(claims::claim);
            if (claim.isEmpty()) {
                return false;
            }
            if (claim.recovered() > 0) {
                metrics.leaseRecovered(claim.recovered());
                LOG.warning(() -> "Recovered " + claim.recovered() + " outbox rows whose claim lease expired");
            }
            // With the broker unreachable the batch is still claimed and released as failed: the rows then
            // show attempts, the error and their backoff to operators (SPEC §4), and nothing else changes.
            List<PublishOutcome> outcomes = unreachable.isEmpty() ? publisher.publish(claim.events())
                    : claim.events().stream().map(e -> PublishOutcome.failed(e.id(), unreachable.get())).toList();
            List<Double> lags = stampWithRetries(claim, outcomes);
            long failed = count(outcomes, PublishOutcome.Result.FAILED);
            long unroutable = count(outcomes, PublishOutcome.Result.UNROUTABLE);
            metrics.published(lags);
            if (unroutable > 0) {
                metrics.unroutable(unroutable);
                outcomes.stream().filter(o -> o.result() == PublishOutcome.Result.UNROUTABLE)
                        .map(PublishOutcome::detail).distinct()
                        .forEach(detail -> LOG.log(firstTime(detail) ? Level.WARNING : Level.FINE,
                                "Outbox events published but routed to no queue (" + unroutable
                                        + " in this batch; counted in durability_outbox_unroutable_total): " + detail));
            }
            if (failed > 0) {
                metrics.failed(failed);
                outcomes.stream().filter(o -> o.result() == PublishOutcome.Result.FAILED)
                        .map(PublishOutcome::detail).distinct()
                        .forEach(detail -> problem("Outbox events not published, retried after backoff: " + detail,
                                null));
                return false;
            }
            if (lastProblem != null) {
                LOG.info("Outbox drain publishing again");
                lastProblem = null;
            }
            if (claim.size() < config.batchSize()) {
                return false;
            }
            if (System.nanoTime() > deadline) {
                return true;
            }
        }
    }

    /**
     * Stamps are fenced and idempotent, so a database blip is retried briefly: giving up would leave
     * acked rows claimed until the lease expires, and they would then be published a second time.
     */
    private List<Double> stampWithRetries(Claim claim, List<PublishOutcome> outcomes) throws Exception {
        long[] pausesMillis = OutboxConfig.STAMP_RETRY_PAUSES_MILLIS;
        for (int attempt = 0; ; attempt++) {
            try {
                return inTransaction(() -> claims.stamp(claim.token(), outcomes));
            } catch (Exception e) {
                if (attempt == pausesMillis.length) {
                    throw e;
                }
                LOG.log(Level.FINE, "Stamping a claim failed; retrying", e);
                Thread.sleep(pausesMillis[attempt]);
            }
        }
    }

    /** Whether this unroutable routing key is new to this server: each is logged at WARNING once, then counted. */
    private boolean firstTime(String unroutableDetail) {
        if (unroutableLogged.size() >= 1000) {
            unroutableLogged.clear();
        }
        return unroutableLogged.add(unroutableDetail);
    }

    private void problem(String message, Exception cause) {
        Level level = message.equals(lastProblem) ? Level.FINE : Level.WARNING;
        lastProblem = message;
        LOG.log(level, message, cause);
    }

    private static long count(List<PublishOutcome> outcomes, PublishOutcome.Result result) {
        return outcomes.stream().filter(o -> o.result() == result).count();
    }

    private <T> T inTransaction(Callable<T> work) throws Exception {
        transaction.begin();
        try {
            T result = work.call();
            transaction.commit();
            return result;
        } catch (Exception | Error e) {
            rollbackQuietly();
            throw e;
        }
    }

    private void rollbackQuietly() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (SystemException | IllegalStateException | SecurityException e) {
            LOG.log(Level.WARNING, "Rollback of an outbox drain transaction failed", e);
        }
    }
}
