package dev.durability.idempotency.boundary;

import dev.durability.idempotency.control.BufferBudget;
import dev.durability.idempotency.control.BufferedRequest;
import dev.durability.idempotency.control.CacheKey;
import dev.durability.idempotency.control.IdempotencyConfig;
import dev.durability.idempotency.control.IdempotencyKey;
import dev.durability.idempotency.control.IdempotencyMetrics;
import dev.durability.idempotency.control.IdempotencyProblems;
import dev.durability.idempotency.control.RecordingResponse;
import dev.durability.idempotency.entity.ClaimOutcome;
import dev.durability.idempotency.entity.StoredResponse;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.inject.Inject;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;
import java.io.IOException;
import java.security.Principal;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes a keyed {@code POST} or {@code PATCH} safe to retry, across restarts and replicas
 * (docs/idempotency.md). The first request with a key claims it in a committed transaction and runs, in a
 * transaction of the filter's that the handler's effects join and its recorded answer commits with
 * (docs/decisions/0051-answer-commits-with-effects.md), its claim renewed while it runs
 * (docs/decisions/0052-claim-renewed-while-running.md); a duplicate while it runs gets 409 with
 * {@code Retry-After}; a repeat after a 2xx gets that answer again, marked {@code Idempotent-Replayed: true},
 * without the handler running; a repeat after any other answer runs again. Anonymous requests and requests
 * without a key pass through untouched, unless configured otherwise.
 *
 * <p>Registered on every path of a WAR that holds it (in {@code WEB-INF/classes} or {@code WEB-INF/lib}); a
 * WAR that gets it from the EAR's {@code lib/} declares it in its {@code web.xml}.
 */
@WebFilter(
        filterName = "durability-idempotency",
        urlPatterns = "/*",
        dispatcherTypes = DispatcherType.REQUEST,
        asyncSupported = true)
public class IdempotencyFilter extends HttpFilter {
    public static final String REPLAYED = "Idempotent-Replayed";
    /** Marks a replay whose original body was not kept (over the cap, or not sent whole): it has no body. */
    public static final String REPLAY_BODY = "Idempotent-Replay-Body";
    /**
     * Request attribute ({@code Boolean.TRUE}) telling the handler that an earlier request with this key left no
     * recorded answer: a handler that commits on its own looks for that request's effects and answers as it did
     * (docs/idempotency.md, "A server that dies mid-request").
     */
    public static final String RETAKEN = "dev.durability.idempotency.retaken";

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(IdempotencyFilter.class.getName());
    private static final int FINALIZE_ATTEMPTS = 3;
    private static final Duration FINALIZE_BACKOFF = Duration.ofMillis(200);

    @Inject
    transient IdempotencyConfig config;

    @Inject
    transient IdempotencyRecords records;

    @Inject
    transient IdempotencyMetrics metrics;

    @Inject
    transient BufferBudget budget;

    @Resource(lookup = "java:comp/UserTransaction")
    transient UserTransaction transaction;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    transient ManagedScheduledExecutorService scheduler;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!config.keys(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        // As the container resolved it (decoded, without path parameters or empty segments), so that no
        // spelling of a URI that reaches the same handler escapes a required key or shares no record.
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        boolean required = config.requiresKey(path);
        Principal principal = request.getUserPrincipal();
        // A path that requires a key keys every request to it, an anonymous one too (under the anonymous
        // scope): docs/decisions/0053-failed-keys-take-a-new-body.md.
        if (principal == null && !config.keysAnonymousRequests() && !required) {
            chain.doFilter(request, response);
            return;
        }
        IdempotencyProblems problems = new IdempotencyProblems(config.policyUrl());
        List<String> lines = Collections.list(request.getHeaders(IdempotencyKey.HEADER));
        if (lines.isEmpty()) {
            if (required) {
                metrics.refused(IdempotencyMetrics.Refusal.MISSING_KEY);
                problems.missingKey(response);
            } else {
                chain.doFilter(request, response);
            }
            return;
        }
        IdempotencyKey key;
        try {
            key = IdempotencyKey.parse(lines);
        } catch (IdempotencyKey.Invalid e) {
            metrics.refused(IdempotencyMetrics.Refusal.INVALID_KEY);
            problems.invalidKey(response, e.getMessage());
            return;
        }
        // What this request may hold in memory: its body (declared, or up to the cap when it is sent in chunks),
        // then its answer as it grows (docs/decisions/0054-buffer-budget.md).
        long declared = request.getContentLengthLong();
        BufferBudget.Reservation reservation = budget.reserve(
                declared > config.maxRequestBytes() ? 0 : declared >= 0 ? declared : config.maxRequestBytes());
        if (reservation == null) {
            metrics.refused(IdempotencyMetrics.Refusal.BUSY);
            problems.busy(response);
            return;
        }
        boolean handedOver = false;
        try {
            BufferedRequest buffered;
            try {
                buffered = BufferedRequest.read(request, config.maxRequestBytes());
            } catch (BufferedRequest.TooLarge e) {
                metrics.refused(IdempotencyMetrics.Refusal.BODY_TOO_LARGE);
                problems.requestTooLarge(response, config.maxRequestBytes());
                return;
            }
            String subject = principal == null ? "" : principal.getName();
            CacheKey cacheKey = CacheKey.of(
                    request.getMethod(), request.getContextPath() + path, request.getQueryString(), subject, key);
            ClaimOutcome outcome;
            try {
                outcome = records.claim(
                        cacheKey,
                        buffered.fingerprint(),
                        request.getMethod(),
                        path,
                        config.claimTimeout(),
                        config.expiry());
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "could not claim an idempotency key; answered 503 without running the request",
                        e);
                problems.unavailable(response);
                return;
            }
            if (outcome instanceof ClaimOutcome.Claimed claimed) {
                metrics.claimed();
                if (claimed.retaken()) {
                    buffered.setAttribute(RETAKEN, Boolean.TRUE);
                }
                handedOver = run(buffered, response, chain, cacheKey, claimed.generation(), path, reservation);
            } else if (outcome instanceof ClaimOutcome.InProgress inProgress) {
                metrics.conflict();
                problems.inProgress(response, inProgress.claimLeft());
            } else if (outcome instanceof ClaimOutcome.Completed completed) {
                metrics.replayed();
                replay(completed.response(), response);
            } else {
                metrics.mismatch();
                problems.bodyMismatch(response);
            }
        } finally {
            if (!handedOver) {
                reservation.close();
            }
        }
    }

    /** @return whether the request continues asynchronously, its reservation handed over to its completion */
    private boolean run(
            BufferedRequest request,
            HttpServletResponse response,
            FilterChain chain,
            CacheKey key,
            long generation,
            String path,
            BufferBudget.Reservation reservation)
            throws IOException, ServletException {
        ClaimRenewal renewal = ClaimRenewal.start(
                scheduler, records, key, generation, config.claimTimeout(), config.transactionTimeout());
        boolean joined = !config.ownTransaction(path);
        RecordingResponse recording =
                new RecordingResponse(response, config.maxResponseBytes(), joined, reservation::grow);
        request.respondThrough(recording);
        if (joined) {
            try {
                begin();
            } catch (NotSupportedException | SystemException e) {
                renewal.stop();
                LOG.log(Level.WARNING, "could not begin the idempotency transaction; answered 503", e);
                recordSeparately(key, generation, 503);
                new IdempotencyProblems(config.policyUrl()).unavailable(response);
                return false;
            }
        }
        Throwable failure = null;
        try {
            chain.doFilter(request, recording);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            failure = e;
        }
        if (failure == null && request.isAsyncStarted()) {
            // The handler goes on on another thread, beyond this transaction: what ran here commits, and the
            // answer is recorded when the response completes, as for a handler with its own transactions.
            if (joined) {
                end();
            }
            request.getAsyncContext()
                    .addListener(new FinalizeOnCompletion(recording, key, generation, renewal, reservation));
            return true;
        }
        renewal.stop();
        if (joined) {
            finishJoined(recording, response, key, generation, failure);
        } else {
            recordOutcome(recording, key, generation, failure);
        }
        rethrow(failure);
        return false;
    }

    /**
     * Records the outcome in the filter's transaction and commits it with the handler's effects, then lets the
     * answer go. A 2xx answer that cannot commit (fenced by a newer claim, marked rollback-only, timed out, the
     * commit failed) keeps neither: the caller gets 503 instead, or, when a body over the cap was already
     * streaming, a connection cut short (docs/decisions/0051-answer-commits-with-effects.md).
     */
    private void finishJoined(
            RecordingResponse recording, HttpServletResponse response, CacheKey key, long generation, Throwable failure)
            throws IOException, ServletException {
        recording.finish();
        int status = recording.getStatus();
        boolean succeeded = status >= 200 && status <= 299 && (failure == null || recording.answerSent());
        if (!succeeded) {
            // The handler's own answer stands; what it did commits with the failed mark unless it was marked
            // for rollback or threw.
            Commit commit = failure == null
                    ? commitWith(() -> records.failWithin(key, generation, status))
                    : Commit.NOT_COMMITTED;
            if (commit != Commit.COMMITTED) {
                rollback();
            }
            if (commit == Commit.NOT_COMMITTED) {
                recordSeparately(key, generation, failure == null || recording.answerSent() ? status : 500);
            }
            if (failure == null) {
                recording.release();
            }
            return;
        }
        StoredResponse stored = recording.stored(config::replays, failure != null);
        Commit commit = commitWith(() -> records.succeedWithin(key, generation, stored));
        if (commit == Commit.COMMITTED) {
            if (stored.bodyOmitted()) {
                metrics.sentinel();
            }
            recording.release();
            return;
        }
        rollback();
        metrics.rolledBack();
        if (commit == Commit.NOT_COMMITTED) {
            // A commit whose outcome is unknown may have committed: the failed mark changes only a row still
            // processing, so a committed success stays and is replayed.
            recordSeparately(key, generation, 503);
        }
        if (recording.answerSent()) {
            throw new IOException("the keyed request's effects and answer could not be committed: its answer, "
                    + "already streaming, is cut short");
        }
        recording.discard();
        new IdempotencyProblems(config.policyUrl()).notCommitted(response);
    }

    private enum Commit {
        COMMITTED,
        /** A newer claim holds the key: it records the outcome. */
        FENCED,
        NOT_COMMITTED
    }

    /**
     * Runs the fenced finalize in the filter's transaction and commits it with the handler's effects. Anything
     * but {@link Commit#COMMITTED} leaves the transaction for the caller to roll back.
     */
    private Commit commitWith(Supplier<Boolean> finalize) {
        try {
            if (transaction.getStatus() != Status.STATUS_ACTIVE) {
                LOG.warning("a keyed request's transaction was marked for rollback or timed out: nothing of it "
                        + "was kept");
                return Commit.NOT_COMMITTED;
            }
            boolean held;
            try {
                held = finalize.get();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not record a keyed request's outcome in its transaction", e);
                return Commit.NOT_COMMITTED;
            }
            if (!held) {
                metrics.fenced();
                LOG.warning("a keyed request outlived its claim: a newer request holds the key, so this one's "
                        + "effects were rolled back");
                return Commit.FENCED;
            }
            transaction.commit();
            return Commit.COMMITTED;
        } catch (RollbackException | HeuristicMixedException | HeuristicRollbackException | SystemException e) {
            LOG.log(Level.WARNING, "a keyed request's transaction did not commit", e);
            return Commit.NOT_COMMITTED;
        }
    }

    private void begin() throws NotSupportedException, SystemException {
        transaction.setTransactionTimeout((int) config.transactionTimeout().toSeconds());
        try {
            transaction.begin();
        } finally {
            transaction.setTransactionTimeout(0); // the thread's next transaction gets the server's default
        }
    }

    /** Commits what the handler did on the request's thread, or rolls it back when it was marked so. */
    private void end() {
        try {
            if (transaction.getStatus() == Status.STATUS_ACTIVE) {
                transaction.commit();
            } else {
                rollback();
            }
        } catch (RollbackException | HeuristicMixedException | HeuristicRollbackException | SystemException e) {
            LOG.log(Level.WARNING, "the transaction of an asynchronous keyed request did not commit", e);
        }
    }

    private void rollback() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (SystemException | IllegalStateException e) {
            LOG.log(Level.WARNING, "could not roll back a keyed request's transaction", e);
        }
    }

    private static void rethrow(Throwable failure) throws IOException, ServletException {
        if (failure instanceof IOException e) {
            throw e;
        } else if (failure instanceof ServletException e) {
            throw e;
        } else if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure instanceof Error e) {
            throw e;
        }
    }

    /**
     * For a handler that keeps its own transactions (or finished asynchronously): its effects committed or not
     * on their own, and the record follows them. Once the handler answered 2xx its effects are committed:
     * whatever happens to the body after that (over the cap, a failed write, the client gone) the record says
     * succeeded, without the body if it was not kept whole. Anything else (another status, or a failure before
     * the answer was committed) says failed: a retry runs again.
     */
    private void recordOutcome(RecordingResponse recording, CacheKey key, long generation, Throwable failure) {
        recording.finish();
        int status = recording.getStatus();
        boolean succeeded = status >= 200 && status <= 299 && (failure == null || recording.isCommitted());
        if (!succeeded) {
            recordSeparately(key, generation, failure == null || recording.isCommitted() ? status : 500);
            return;
        }
        StoredResponse stored = recording.stored(config::replays, failure != null);
        if (finalizeWithRetries(key, generation, status, () -> records.succeed(key, generation, stored))
                && stored.bodyOmitted()) {
            metrics.sentinel();
        }
    }

    /** Marks the request failed in a statement of its own, so a retry runs again. */
    private void recordSeparately(CacheKey key, long generation, int status) {
        finalizeWithRetries(key, generation, status, () -> records.fail(key, generation, status));
    }

    /**
     * A finalize in a statement of its own, tried a few times over about a second: a finalize that cannot be
     * written leaves the claim to lapse, and a retry after that runs the handler again.
     *
     * @return whether the record holds the outcome
     */
    private boolean finalizeWithRetries(CacheKey key, long generation, int status, Supplier<Boolean> finalize) {
        for (int attempt = 1; ; attempt++) {
            try {
                boolean held = finalize.get();
                if (!held) {
                    metrics.fenced();
                    LOG.warning(() -> "a keyed request outlived its claim (generation " + generation + " of record "
                            + key + "): a newer request holds the key, so this one's outcome was not recorded");
                }
                return held;
            } catch (RuntimeException e) {
                if (attempt >= FINALIZE_ATTEMPTS) {
                    metrics.unrecorded();
                    LOG.log(
                            Level.SEVERE,
                            "could not record the outcome of keyed request " + key + " (answered " + status
                                    + "): a retry after its claim expires runs it again",
                            e);
                    return false;
                }
                try {
                    Thread.sleep(FINALIZE_BACKOFF.toMillis() * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    private void replay(StoredResponse stored, HttpServletResponse response) throws IOException {
        response.setStatus(stored.status());
        for (Map.Entry<String, String> header : stored.headers()) {
            if (stored.bodyOmitted() && header.getKey().equalsIgnoreCase("Content-Type")) {
                continue;
            }
            response.addHeader(header.getKey(), header.getValue());
        }
        response.setHeader(REPLAYED, "true");
        if (stored.bodyOmitted()) {
            response.setHeader(REPLAY_BODY, "omitted");
            response.addHeader("Link", "<" + config.policyUrl() + ">; rel=\"help\"");
            response.setContentLength(0);
        } else {
            response.setContentLength(stored.body().length);
            response.getOutputStream().write(stored.body());
        }
    }

    /** Finalizes a request the handler finished asynchronously, when its response completes. */
    private final class FinalizeOnCompletion implements AsyncListener {
        private final RecordingResponse recording;
        private final CacheKey key;
        private final long generation;
        private final ClaimRenewal renewal;
        private final BufferBudget.Reservation reservation;
        private Throwable failure;

        FinalizeOnCompletion(
                RecordingResponse recording,
                CacheKey key,
                long generation,
                ClaimRenewal renewal,
                BufferBudget.Reservation reservation) {
            this.recording = recording;
            this.key = key;
            this.generation = generation;
            this.renewal = renewal;
            this.reservation = reservation;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            renewal.stop();
            try {
                recordOutcome(recording, key, generation, failure);
            } finally {
                reservation.close();
            }
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            failure = new IllegalStateException("the asynchronous request timed out");
        }

        @Override
        public void onError(AsyncEvent event) {
            failure = event.getThrowable() == null
                    ? new IllegalStateException("asynchronous failure")
                    : event.getThrowable();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }
}
