package dev.durability.outbox;

import dev.durability.envelope.EventEnvelope;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Stages events in the caller's JTA transaction: the event exists exactly when the business change
 * that caused it commits. Inject it into an EJB (or a {@code @Transactional} bean) and call
 * {@code stage} inside the business method; the drain publishes it after commit (docs/outbox.md).
 *
 * <p>It never starts a transaction of its own: called without an active one it throws {@link
 * jakarta.persistence.TransactionRequiredException}, because auto-committing the event would publish
 * news of a change that may still roll back. Every row is written (flushed) inside the call, so a row
 * the database refuses fails the call, not the caller's commit. An invalid event type or payload, or an
 * envelope over {@code durability.outbox.max-envelope-bytes}, throws {@link
 * dev.durability.envelope.InvalidEnvelopeException}.
 */
public interface OutboxStager {

    /**
     * Stages a new event of this service.
     *
     * @param eventType   dotted lower-case, e.g. {@code order.placed}
     * @param aggregateId the entity the event is about, or {@code null}
     * @param payload     a {@link jakarta.json.JsonObject} or any object JSON-B writes as a JSON object
     * @return the envelope id (UUIDv7)
     */
    UUID stage(String eventType, UUID aggregateId, Object payload);

    /**
     * Stages a complete envelope (built with {@link #envelope} or {@link EventEnvelope#builder}).
     *
     * @param envelope the event to stage
     * @return its id
     */
    UUID stage(EventEnvelope envelope);

    /**
     * Stages many events in one JDBC batch: one round trip for the whole collection instead of one per
     * event. Every envelope is checked before anything is written, so an invalid one fails the call
     * with nothing staged by it.
     *
     * @param envelopes the events to stage
     * @return the envelope ids, in the collection's order
     */
    List<UUID> stage(Collection<EventEnvelope> envelopes);

    /**
     * A new envelope of this service (source, fresh UUIDv7 id, occurred now), to stage alone or in a
     * collection.
     *
     * @param eventType   dotted lower-case, e.g. {@code order.placed}
     * @param aggregateId the entity the event is about, or {@code null}
     * @param payload     a {@link jakarta.json.JsonObject} or any object JSON-B writes as a JSON object
     * @return the envelope, not yet staged
     */
    EventEnvelope envelope(String eventType, UUID aggregateId, Object payload);
}
