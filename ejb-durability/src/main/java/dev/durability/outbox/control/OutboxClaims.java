package dev.durability.outbox.control;

import dev.durability.config.control.ServiceConfig;
import dev.durability.outbox.entity.OutboxEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Claims, stamps and releases outbox rows. Every method joins the caller's transaction; every stamp is
 * fenced on the claim token, so a worker whose lease expired changes nothing another worker now holds.
 */
@ApplicationScoped
public class OutboxClaims {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    OutboxConfig config;

    @Inject
    ServiceConfig service;

    /** Claims up to a batch of due rows under a new token. */
    public Claim claim() {
        UUID token = UUID.randomUUID();
        em.createNamedQuery(OutboxEvent.PREFER_ORDERED_PENDING_SCAN).getSingleResult();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNamedQuery(OutboxEvent.CLAIM)
                .setParameter(1, config.leaseSeconds())
                .setParameter(2, config.batchSize())
                .setParameter(3, token.toString())
                .setParameter(4, service.instanceName())
                .getResultList();
        List<ClaimedEvent> events = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            events.add(new ClaimedEvent((UUID) row[0], (String) row[1], (String) row[2], (Boolean) row[3]));
        }
        return new Claim(token, events);
    }

    /**
     * Records the broker's word on each message of a claim.
     *
     * @return the publish lag in seconds of every confirmed row stamped published (a row whose claim was
     *         lost to another worker meanwhile is not stamped, and not counted)
     */
    public List<Double> stamp(UUID token, Collection<PublishOutcome> outcomes) {
        Map<PublishOutcome.Result, List<PublishOutcome>> byResult = outcomes.stream()
                .collect(Collectors.groupingBy(PublishOutcome::result));
        List<Double> lags = new ArrayList<>(markPublished(token, byResult.getOrDefault(PublishOutcome.Result.CONFIRMED, List.of()), null));
        // Unroutable rows share one reason per routing key; group so each distinct text is one statement.
        byResult.getOrDefault(PublishOutcome.Result.UNROUTABLE, List.of()).stream()
                .collect(Collectors.groupingBy(PublishOutcome::detail))
                .forEach((detail, rows) -> markPublished(token, rows, detail));
        byResult.getOrDefault(PublishOutcome.Result.FAILED, List.of()).stream()
                .collect(Collectors.groupingBy(PublishOutcome::detail))
                .forEach((detail, rows) -> releaseFailed(token, rows, detail));
        return lags;
    }

    private List<Double> markPublished(UUID token, List<PublishOutcome> rows, String note) {
        if (rows.isEmpty()) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<Object> lags = em.createNamedQuery(OutboxEvent.MARK_PUBLISHED)
                .setParameter(1, uuidArray(rows))
                .setParameter(2, token.toString())
                .setParameter(3, note == null ? null : truncate(note))
                .getResultList();
        return lags.stream().map(lag -> lag instanceof BigDecimal d ? d.doubleValue() : ((Number) lag).doubleValue())
                .toList();
    }

    private void releaseFailed(UUID token, List<PublishOutcome> rows, String error) {
        em.createNamedQuery(OutboxEvent.RELEASE_FAILED)
                .setParameter(1, uuidArray(rows))
                .setParameter(2, truncate(error))
                .setParameter(3, config.backoffInitialSeconds())
                .setParameter(4, config.backoffMaxSeconds())
                .setParameter(5, token.toString())
                .executeUpdate();
    }

    private static String uuidArray(List<PublishOutcome> rows) {
        return rows.stream().map(row -> row.id().toString()).collect(Collectors.joining(",", "{", "}"));
    }

    private static String truncate(String text) {
        String value = text == null || text.isBlank() ? "unknown error" : text;
        return value.length() <= OutboxEvent.MAX_ERROR_LENGTH ? value : value.substring(0, OutboxEvent.MAX_ERROR_LENGTH);
    }
}
