package dev.durability.inbox.boundary;

import dev.durability.envelope.EventEnvelope;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.inbox.control.RetryPolicy;
import dev.durability.inbox.entity.InboxEntry;
import dev.durability.inbox.entity.InboxState;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.List;

/**
 * The transactions a delivery runs in. {@link #process} is the delivery's one JTA transaction
 * (docs/consumers.md): the inbox row, the handler's own JPA work and staged events, and
 * {@code processed_at} commit together. {@link #recordFailure} runs in a new transaction, so a failed
 * attempt is counted even though the handler's transaction rolled back.
 */
@Stateless
public class InboxTransactions {
    private static final int MAX_ERROR = 2000;

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    InboxConfig config;

    @Resource
    SessionContext context;

    /**
     * Runs the handler once for this envelope and queue, unless the inbox already has it processed or
     * dead-lettered.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public Processing process(String queue, EventEnvelope envelope, EventHandler handler) {
        String id = envelope.id().toString();
        List<Integer> begun;
        InboxState state = null;
        try {
            begun = em.createNamedQuery(InboxEntry.BEGIN, Integer.class)
                    .setParameter(1, queue)
                    .setParameter(2, id)
                    .setParameter(3, envelope.sourceService())
                    .setParameter(4, envelope.eventType())
                    .setParameter(5, Long.toString(config.deadSession().toMillis()))
                    .getResultList();
            if (begun.isEmpty()) {
                state = em.createNamedQuery(InboxEntry.STATE_OF, InboxState.class)
                        .setParameter(1, queue)
                        .setParameter(2, id)
                        .getSingleResult();
            }
        } catch (RuntimeException e) {
            // The inbox itself failed (the database unreachable, the pool exhausted), before any handler ran:
            // no attempt of the handler to count; the consumer pauses instead.
            context.setRollbackOnly();
            return new Processing(Processing.Result.INBOX_UNAVAILABLE, null, e);
        }
        if (state != null) {
            return new Processing(
                    state.processed() ? Processing.Result.DUPLICATE : Processing.Result.DEAD_LETTERED_BEFORE,
                    state,
                    null);
        }
        try {
            handler.handle(envelope);
        } catch (Exception e) {
            context.setRollbackOnly();
            return new Processing(Processing.Result.FAILED, null, e);
        }
        if (context.getRollbackOnly()) {
            // The handler swallowed a failure of something that doomed the transaction (an EJB it called).
            return new Processing(
                    Processing.Result.FAILED,
                    null,
                    new IllegalStateException("the handler returned, but its transaction was marked for rollback"));
        }
        return new Processing(Processing.Result.PROCESSED, null, null);
    }

    /**
     * Starts a new occurrence for an envelope this consumer dead-lettered and now receives afresh (a
     * replay): attempts from 0, a new {@code received_at}. In a transaction of its own, so the new
     * occurrence stands even when the handler fails again and its transaction rolls back.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void restart(String queue, EventEnvelope envelope) {
        em.createNamedQuery(InboxEntry.RESTART)
                .setParameter(1, queue)
                .setParameter(2, envelope.id().toString())
                .executeUpdate();
    }

    /**
     * Counts a failed attempt and decides, in the same new transaction, whether the envelope is retried
     * or dead-lettered (then marked so, before anything is published). Empty when the envelope was
     * processed meanwhile (a concurrent duplicate succeeded): nothing is left to do.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public List<Failure> recordFailure(
            String queue,
            EventEnvelope envelope,
            Throwable failure,
            boolean permanent,
            RetryPolicy policy,
            Integer publication) {
        List<InboxState> recorded = em.createNamedQuery(InboxEntry.RECORD_FAILURE, InboxState.class)
                .setParameter(1, queue)
                .setParameter(2, envelope.id().toString())
                .setParameter(3, envelope.sourceService())
                .setParameter(4, envelope.eventType())
                .setParameter(5, describe(failure))
                .getResultList();
        if (recorded.isEmpty()) {
            return List.of();
        }
        InboxState state = recorded.get(0);
        RetryPolicy.Next next = policy.afterFailure(state.attempts(), permanent);
        if (next == RetryPolicy.Next.DEAD_LETTER) {
            em.createNamedQuery(InboxEntry.MARK_DEAD_LETTERED)
                    .setParameter(1, queue)
                    .setParameter(2, envelope.id().toString())
                    .setParameter(3, publication)
                    .executeUpdate();
        }
        return List.of(new Failure(next, state));
    }

    /**
     * How many envelopes of this queue failed and are neither processed nor dead-lettered although their first
     * failure is older than {@code staleAfter}: a retry copy that never came back (docs/decisions/0055-stale-retries.md).
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public long staleInProgress(String queue, Duration staleAfter) {
        return em.createNamedQuery(InboxEntry.STALE_IN_PROGRESS, Long.class)
                .setParameter(1, queue)
                .setParameter(2, staleAfter.toSeconds())
                .getSingleResult();
    }

    /** The failure as the inbox row and the dead letter show it: type and message, bounded, without NULs. */
    public static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null && text.length() < MAX_ERROR; cause = cause.getCause()) {
            if (!text.isEmpty()) {
                text.append("; caused by ");
            }
            text.append(cause.getClass().getName());
            if (cause.getMessage() != null) {
                text.append(": ").append(cause.getMessage());
            }
        }
        String bounded = text.length() > MAX_ERROR ? text.substring(0, MAX_ERROR) + "..." : text.toString();
        return bounded.replace('\u0000', '\uFFFD');
    }

    /**
     * What {@link #process} did. {@code state} is the inbox row a duplicate or dead-lettered delivery
     * found; null when the handler ran.
     */
    public record Processing(Result result, InboxState state, Exception failure) {
        public enum Result {
            PROCESSED,
            DUPLICATE,
            /** This consumer dead-lettered the envelope already; the delivery is a redelivery of that. */
            DEAD_LETTERED_BEFORE,
            /** The handler or its commit failed: an attempt to count. */
            FAILED,
            /** The inbox's own statements failed before the handler ran: nothing to count, pause. */
            INBOX_UNAVAILABLE
        }
    }

    /** A failed attempt as recorded: what follows, and the row after counting it. */
    public record Failure(RetryPolicy.Next next, InboxState state) {}
}
