package dev.durability.outbox.boundary;

import com.rabbitmq.client.Channel;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.broker.control.TopologyRefused;
import dev.durability.config.control.ServiceConfig;
import dev.durability.outbox.control.BoundedRetries;
import dev.durability.outbox.control.BrokerReadiness;
import dev.durability.outbox.control.Claim;
import dev.durability.outbox.control.ConfirmedPublisher;
import dev.durability.outbox.control.DrainLoop;
import dev.durability.outbox.control.DrainStep;
import dev.durability.outbox.control.DrainWakeUp;
import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.control.OutboxMetrics;
import dev.durability.outbox.control.PublishOutcome;
import dev.durability.outbox.control.StagingNotifications;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Drains the outbox on every server: claim (short transaction) → publish with confirms (no transaction,
 * no row locks) → stamp (short transaction), repeated while rows are due, within a time budget. The next
 * batch is claimed and sent before the previous one's confirms are awaited, and a batch's stamps commit
 * on the managed executor while the next batch is claimed and sent, so the broker confirms one batch
 * while the database claims one and stamps another. When to claim again and when to
 * stop is {@link DrainLoop}'s; this bean keeps the timer, the overlap guard and the transactions.
 *
 * <p>Timer: a non-persistent interval timer, every {@code durability.outbox.poll-interval-ms} (default
 * 1 s), created at start-up; bean-managed transactions, so the publish step runs outside any
 * transaction and each claim and stamp commits on its own. A tick that finds the previous one still
 * running returns at once: ticks never overlap on one server. A tick that used up its time budget
 * while rows were still due schedules a one-off continuation at once, so a backlog drains without
 * waiting for the next interval while no single tick runs unbounded. With
 * A transaction that staged through OutboxStager on this server wakes the drain with a one-off timer as soon
 * as it commits, so an event waits milliseconds rather than up to a poll interval; with {@code
 * durability.outbox.listen-notify} (on by default) a LISTEN connection does the same for rows inserted by
 * SQL. The interval timer stays the fallback and serves rows in backoff and other servers' rows.
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

    /** Runs stamp attempts, so that waiting for one is bounded by the stamp budget (see BoundedRetries). */
    @Resource
    ManagedExecutorService executor;

    @Inject
    OutboxConfig config;

    @Inject
    OutboxClaims claims;

    @Inject
    ClaimStamps stamps;

    @Inject
    ConfirmedPublisher publisher;

    @Inject
    BrokerConnection broker;

    @Inject
    OutboxMetrics metrics;

    @Inject
    DrainWakeUp wakeUp;

    private final AtomicBoolean draining = new AtomicBoolean();

    /** A wake-up is scheduled or arrived during a tick: at most one outstanding, however many notifications. */
    private final AtomicBoolean wakeRequested = new AtomicBoolean();

    @Resource
    SessionContext context;

    @Resource
    ManagedThreadFactory threads;

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    @Inject
    ServiceConfig service;

    private StagingNotifications notifications;

    /** The last problem logged at WARNING; repeats of it go to FINE, so an outage is one line, not one a second. */
    private volatile String lastProblem;

    /** Only the drain (one tick at a time) touches it. */
    private final Set<String> unroutableLogged = new HashSet<>();

    /** The batch being stamped; only the drain (one tick at a time) touches it, and a tick ends with none. */
    private Stamping stamping;

    @PostConstruct
    void schedule() {
        declareTopology();
        long interval = config.pollInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("durability-outbox-drain", false));
        OutboxDrainTimer self = context.getBusinessObject(OutboxDrainTimer.class);
        // Events staged on this server wake it after their commit, in the process (decision 0082).
        wakeUp.register(self::wake);
        if (config.listenNotify()) {
            notifications = new StagingNotifications(dataSource, service.schema(), service.instanceName(), self::wake);
            threads.newThread(notifications).start();
        }
    }

    /**
     * Declares the events exchange now, whether or not this server consumes: an exchange that exists with
     * other arguments stops the start with the broker's reason ({@link TopologyRefused}) rather than failing
     * every later publish as if the broker were unreachable. A broker that cannot be reached is the drain's
     * to retry, not a reason to refuse the start.
     */
    private void declareTopology() {
        try (Channel channel = broker.openChannel()) {
            broker.declareTopology(channel);
        } catch (TopologyRefused e) {
            throw e;
        } catch (IOException | TimeoutException | RuntimeException e) {
            LOG.warning(
                    () -> "RabbitMQ unreachable at start-up; the drain declares the events exchange once it is: " + e);
        }
    }

    /**
     * Drains now: events were staged (a notification arrived). A tick already running takes them, or the
     * tick it schedules when it ends does; at most one wake-up timer is outstanding.
     */
    public void wake() {
        if (wakeRequested.compareAndSet(false, true)) {
            timers.createSingleActionTimer(0, new TimerConfig("durability-outbox-wake", false));
        }
    }

    /**
     * Closes the broker connection while this bean still runs: the connection's threads come from a
     * thread factory bound to this component, and closing later would start them in a stopped one.
     */
    @PreDestroy
    void stop() {
        wakeUp.register(DrainWakeUp.NOBODY);
        if (notifications != null) {
            notifications.stop();
        }
        publisher.close();
        broker.close();
    }

    @Timeout
    void tick() {
        if (!draining.compareAndSet(false, true)) {
            return;
        }
        // From here on this tick sees whatever was staged before: a wake-up arriving later schedules another.
        wakeRequested.set(false);
        DrainLoop.Next next = DrainLoop.Next.STOP;
        try {
            next = drain();
        } catch (Exception e) {
            // The rows stay claimed or pending; the lease and the next tick take it from here.
            metrics.tickFailed();
            problem("Outbox drain tick failed; it resumes on the next tick: " + e, e);
        } finally {
            metrics.tickEnded();
            draining.set(false);
        }
        if (next == DrainLoop.Next.CONTINUE_IN_NEW_TICK || wakeRequested.get()) {
            // Scheduled only after this tick let go, or the continuation could find it still running and skip.
            timers.createSingleActionTimer(0, new TimerConfig("durability-outbox-drain-continuation", false));
        }
    }

    private DrainLoop.Next drain() throws Exception {
        long deadline = System.nanoTime() + config.tickBudget().toNanos();
        // The batch sent last, its confirms perhaps still on their way while the next one is claimed and sent.
        ConfirmedPublisher.Sent ahead = null;
        try {
            while (true) {
                BrokerReadiness broker = publisher.prepare();
                if (!DrainLoop.mayClaim(broker)) {
                    problem(
                            "Outbox drain paused, nothing claimed: "
                                    + broker.problem().orElse("broker not ready"),
                            null);
                    return DrainLoop.Next.STOP;
                }
                long claiming = System.nanoTime();
                Claim claim = inTransaction(claims::claim);
                if (!claim.isEmpty()) {
                    metrics.stepTook(DrainStep.CLAIM, System.nanoTime() - claiming);
                }
                if (claim.recovered() > 0) {
                    metrics.leaseRecovered(claim.recovered());
                    LOG.warning(() -> "Recovered " + claim.recovered() + " outbox rows whose claim lease expired");
                }
                ConfirmedPublisher.Sent sent = claim.isEmpty() ? null : send(claim, broker);
                ConfirmedPublisher.Sent previous = ahead;
                ahead = sent;
                if (previous != null && DrainLoop.endsTick(settle(previous))) {
                    return DrainLoop.Next.STOP;
                }
                boolean budgetLeft = System.nanoTime() < deadline;
                if (!DrainLoop.claimAhead(claim, config.batchSize(), budgetLeft)) {
                    ahead = null;
                    List<PublishOutcome> outcomes = sent == null ? List.of() : settle(sent);
                    return DrainLoop.after(claim, outcomes, config.batchSize(), budgetLeft);
                }
            }
        } finally {
            try {
                if (ahead != null) {
                    // The tick ends (or failed) with a batch sent: its confirms are awaited and stamped now, so no
                    // row stays claimed until its lease runs out and no batch is handed from one tick to the next.
                    settle(ahead);
                }
            } finally {
                awaitStamps();
            }
        }
    }

    /**
     * Sends a claim, unless the broker cannot take it. An alarm found only now (the channel was idle) hands
     * the rows back untried. With the broker unreachable the batch is still claimed and released as failed:
     * the rows then show attempts, the error and their backoff to operators, and nothing else changes.
     */
    private ConfirmedPublisher.Sent send(Claim claim, BrokerReadiness broker) {
        BrokerReadiness sending = broker.isReady() ? publisher.readyAfterIdle() : broker;
        if (!sending.isReady()) {
            return ConfirmedPublisher.unsent(claim, sending);
        }
        long start = System.nanoTime();
        ConfirmedPublisher.Sent sent = publisher.send(claim);
        if (sent.written()) {
            metrics.stepTook(DrainStep.SEND, System.nanoTime() - start);
        }
        return sent;
    }

    /**
     * Awaits a sent batch's confirms and starts committing its stamps on the executor, where they overlap
     * the next claim and send; the previous batch's stamps are awaited first, so at most one batch is being
     * stamped. Its outcomes are known now, which is all the drain's next decision needs.
     */
    private List<PublishOutcome> settle(ConfirmedPublisher.Sent sent) throws Exception {
        long waiting = System.nanoTime();
        List<PublishOutcome> outcomes = publisher.settle(sent);
        if (sent.written()) {
            metrics.stepTook(DrainStep.CONFIRM, System.nanoTime() - waiting);
        }
        Exception earlier = null;
        try {
            awaitStamps();
        } catch (Exception e) {
            // The previous batch's stamps failed: this batch's are still started, or its rows would wait out their
            // lease and be published again.
            earlier = e;
        }
        UUID token = sent.claim().token();
        BoundedRetries retries = new BoundedRetries(executor, config.stampTimeout());
        stamping = new Stamping(
                outcomes,
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                long started = System.nanoTime();
                                try {
                                    return retries.run(() -> stamps.commit(token, outcomes));
                                } finally {
                                    // Given up on too: a stamp that spends its whole budget is what an operator
                                    // looks for here.
                                    metrics.stepTook(DrainStep.STAMP, System.nanoTime() - started);
                                }
                            } catch (Exception e) {
                                throw new CompletionException(e);
                            }
                        },
                        executor));
        if (earlier != null) {
            throw earlier;
        }
        return outcomes;
    }

    /** Waits for the batch being stamped, if any, within the stamp budget, and reports it. */
    private void awaitStamps() throws Exception {
        Stamping current = stamping;
        if (current == null) {
            return;
        }
        stamping = null;
        List<Double> lags;
        try {
            // BoundedRetries gives up within the budget; the margin covers the task waiting for a thread (the lease
            // check counts it).
            lags = current.lags()
                    .get(
                            config.stampTimeout().toMillis() + OutboxConfig.STAMP_START_MARGIN_MILLIS,
                            TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        report(current.outcomes(), lags);
    }

    /** A batch whose stamps are committing on the executor while the drain claims and sends the next one. */
    private record Stamping(List<PublishOutcome> outcomes, CompletableFuture<List<Double>> lags) {}

    private void report(List<PublishOutcome> outcomes, List<Double> lags) {
        metrics.published(lags);
        long unroutable = count(outcomes, PublishOutcome.Result.UNROUTABLE);
        if (unroutable > 0) {
            metrics.unroutable(unroutable);
            outcomes.stream()
                    .filter(o -> o.result() == PublishOutcome.Result.UNROUTABLE)
                    .map(PublishOutcome::detail)
                    .distinct()
                    .forEach(detail -> LOG.log(
                            firstTime(detail) ? Level.WARNING : Level.FINE,
                            "Outbox events routed to no queue, kept apart as unroutable (" + unroutable
                                    + " in this batch; counted in durability_outbox_unroutable_total): " + detail));
        }
        outcomes.stream()
                .filter(o -> o.result() == PublishOutcome.Result.HELD)
                .findFirst()
                .ifPresent(held -> problem("Outbox drain paused, claim handed back untried: " + held.detail(), null));
        long failed = outcomes.stream().filter(o -> o.result().failure()).count();
        if (failed > 0) {
            metrics.failed(failed);
            outcomes.stream()
                    .filter(o -> o.result().failure())
                    .map(PublishOutcome::detail)
                    .distinct()
                    .forEach(detail -> problem("Outbox events not published, retried after backoff: " + detail, null));
        } else if (lastProblem != null && !lags.isEmpty()) {
            LOG.info("Outbox drain publishing again");
            lastProblem = null;
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
