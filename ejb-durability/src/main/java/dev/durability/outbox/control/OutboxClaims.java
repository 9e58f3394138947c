package dev.durability.outbox.control;

import dev.durability.config.control.ServiceConfig;
import dev.durability.outbox.entity.ClaimedRow;
import dev.durability.outbox.entity.OutboxEvent;
import dev.durability.outbox.entity.PublishedRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Claims, stamps and releases outbox rows. Every method joins the caller's transaction and bounds its
 * statements by {@code durability.outbox.statement-timeout-ms}; every stamp is fenced on the claim
 * token, so a worker whose lease expired changes nothing another worker now holds.
 */
@ApplicationScoped
public class OutboxClaims {

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    @Inject
    OutboxConfig config;

    @Inject
    ServiceConfig service;

    /** Claims up to a batch of due rows, bounded in rows and in envelope bytes, under a new token. */
    public Claim claim() {
        UUID token = UUID.randomUUID();
        bound(OutboxEvent.BOUND_CLAIM_STATEMENTS);
        List<ClaimedRow> rows = em.createNamedQuery(OutboxEvent.CLAIM, ClaimedRow.class)
                .setParameter(1, token.toString())
                .setParameter(2, service.instanceName())
                .setParameter(3, config.leaseSeconds())
                .setParameter(4, config.batchSize())
                .setParameter(5, config.claimMaxBytes())
                .getResultList();
        return new Claim(token, rows);
    }

    /**
     * Records the broker's word on each message of a claim.
     *
     * @return the publish lag in seconds of every confirmed row stamped published (a row whose claim was
     *         lost to another worker meanwhile is not stamped, and not counted)
     */
    public List<Double> stamp(UUID token, Collection<PublishOutcome> outcomes) {
        bound(OutboxEvent.BOUND_STATEMENTS);
        Map<PublishOutcome.Result, List<PublishOutcome>> byResult =
                outcomes.stream().collect(Collectors.groupingBy(PublishOutcome::result));
        List<Double> lags = new ArrayList<>();
        List<PublishOutcome> confirmed = byResult.getOrDefault(PublishOutcome.Result.CONFIRMED, List.of());
        if (!confirmed.isEmpty()) {
            em.createNamedQuery(OutboxEvent.MARK_PUBLISHED, PublishedRow.class)
                    .setParameter(1, token.toString())
                    .setParameter(2, uuidArray(confirmed))
                    .getResultList()
                    .forEach(row -> lags.add(row.lagSeconds()));
        }
        // Rows sharing a reason (a routing key, a broker error) are one statement per distinct text.
        byResult.getOrDefault(PublishOutcome.Result.UNROUTABLE, List.of()).stream()
                .collect(Collectors.groupingBy(PublishOutcome::detail))
                .forEach((detail, rows) -> em.createNamedQuery(OutboxEvent.MARK_UNROUTABLE)
                        .setParameter(1, token.toString())
                        .setParameter(2, uuidArray(rows))
                        .setParameter(3, truncate(detail))
                        .executeUpdate());
        List<PublishOutcome> held = byResult.getOrDefault(PublishOutcome.Result.HELD, List.of());
        if (!held.isEmpty()) {
            em.createNamedQuery(OutboxEvent.RELEASE_UNTRIED)
                    .setParameter(1, token.toString())
                    .setParameter(2, uuidArray(held))
                    .executeUpdate();
        }
        outcomes.stream()
                .filter(o -> o.result().failure())
                .collect(Collectors.groupingBy(PublishOutcome::detail))
                .forEach((detail, rows) -> em.createNamedQuery(OutboxEvent.RELEASE_FAILED)
                        .setParameter(1, token.toString())
                        .setParameter(2, uuidArray(rows))
                        .setParameter(3, truncate(detail))
                        .setParameter(4, config.backoffInitialSeconds())
                        .setParameter(5, config.backoffMaxSeconds())
                        .executeUpdate());
        return lags;
    }

    /** Runs one of the statements that bound this transaction's statements by the configured timeout. */
    private void bound(String boundingQuery) {
        em.createNamedQuery(boundingQuery)
                .setParameter(1, Long.toString(config.statementTimeoutMillis()))
                .getSingleResult();
    }

    private static String uuidArray(List<PublishOutcome> rows) {
        return rows.stream().map(row -> row.id().toString()).collect(Collectors.joining(",", "{", "}"));
    }

    private static String truncate(String text) {
        String value = text == null || text.isBlank() ? "unknown error" : text;
        return value.length() <= OutboxEvent.MAX_ERROR_LENGTH
                ? value
                : value.substring(0, OutboxEvent.MAX_ERROR_LENGTH);
    }
}
