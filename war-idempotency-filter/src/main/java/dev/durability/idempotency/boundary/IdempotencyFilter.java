package dev.durability.idempotency.boundary;

import dev.durability.idempotency.control.BufferedRequest;
import dev.durability.idempotency.control.CacheKey;
import dev.durability.idempotency.control.IdempotencyConfig;
import dev.durability.idempotency.control.IdempotencyKey;
import dev.durability.idempotency.control.IdempotencyMetrics;
import dev.durability.idempotency.control.IdempotencyProblems;
import dev.durability.idempotency.control.RecordingResponse;
import dev.durability.idempotency.entity.ClaimOutcome;
import dev.durability.idempotency.entity.StoredResponse;
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
import java.io.IOException;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes a keyed {@code POST} or {@code PATCH} safe to retry, across restarts and replicas
 * (docs/idempotency.md). The first request with a key claims it in a committed transaction and runs; a
 * duplicate while it runs gets 409 with {@code Retry-After}; a repeat after a 2xx gets that answer again,
 * marked {@code Idempotent-Replayed: true}, without the handler running; a repeat after any other answer runs
 * again. Anonymous requests and requests without a key pass through untouched, unless configured otherwise.
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

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(IdempotencyFilter.class.getName());

    @Inject
    transient IdempotencyConfig config;

    @Inject
    transient IdempotencyRecords records;

    @Inject
    transient IdempotencyMetrics metrics;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        Principal principal = request.getUserPrincipal();
        if (!config.keys(request.getMethod()) || (principal == null && !config.keysAnonymousRequests())) {
            chain.doFilter(request, response);
            return;
        }
        IdempotencyProblems problems = new IdempotencyProblems(config.policyUrl());
        // As the container resolved it (decoded, without path parameters or empty segments), so that no
        // spelling of a URI that reaches the same handler escapes a required key or shares no record.
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        List<String> lines = Collections.list(request.getHeaders(IdempotencyKey.HEADER));
        if (lines.isEmpty()) {
            if (config.requiresKey(path)) {
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
            LOG.log(Level.WARNING, "could not claim an idempotency key; answered 503 without running the request", e);
            problems.unavailable(response);
            return;
        }
        if (outcome instanceof ClaimOutcome.Claimed claimed) {
            metrics.claimed();
            run(buffered, response, chain, cacheKey, claimed.generation());
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
    }

    private void run(
            BufferedRequest request, HttpServletResponse response, FilterChain chain, CacheKey key, long generation)
            throws IOException, ServletException {
        RecordingResponse recording = new RecordingResponse(response, config.maxResponseBytes());
        request.respondThrough(recording);
        Throwable failure = null;
        try {
            chain.doFilter(request, recording);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (failure == null && request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new FinalizeOnCompletion(recording, key, generation));
            } else {
                recordOutcome(recording, key, generation, failure);
            }
        }
    }

    /**
     * Once the handler answered 2xx its effects are committed: whatever happens to the body after that (over the
     * cap, a failed write, the client gone) the record says succeeded, without the body if it was not kept whole.
     * Anything else (another status, or a failure before the answer was committed) says failed: a retry runs again.
     */
    private void recordOutcome(RecordingResponse recording, CacheKey key, long generation, Throwable failure) {
        recording.finish();
        int status = recording.getStatus();
        boolean succeeded = status >= 200 && status <= 299 && (failure == null || recording.isCommitted());
        try {
            boolean held;
            if (succeeded) {
                StoredResponse stored = recording.stored(config::replays, failure != null);
                held = records.succeed(key, generation, stored);
                if (held && stored.bodyOmitted()) {
                    metrics.sentinel();
                }
            } else {
                held = records.fail(key, generation, failure == null || recording.isCommitted() ? status : 500);
            }
            if (!held) {
                metrics.fenced();
                LOG.warning(() -> "a keyed request outlived its claim (generation " + generation + " of record " + key
                        + "): a newer request holds the key, so this one's outcome was not recorded");
            }
        } catch (RuntimeException e) {
            metrics.unrecorded();
            LOG.log(
                    Level.SEVERE,
                    "could not record the outcome of keyed request " + key + " (answered " + status
                            + "): a retry after its claim expires runs it again",
                    e);
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
        private Throwable failure;

        FinalizeOnCompletion(RecordingResponse recording, CacheKey key, long generation) {
            this.recording = recording;
            this.key = key;
            this.generation = generation;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            recordOutcome(recording, key, generation, failure);
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
