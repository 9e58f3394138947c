package dev.durability.outbox.boundary;

import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.PublishOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.UUID;

/**
 * Commits a claim's stamps in a transaction of their own. The drain runs each stamp attempt on a
 * managed executor thread, so that waiting for it is bounded; an EJB's UserTransaction serves only
 * the EJB's own thread, hence a transactional boundary of its own here.
 */
@ApplicationScoped
public class ClaimStamps {

    @Inject
    OutboxClaims claims;

    /** @return the publish lag of every row stamped published, as {@link OutboxClaims#stamp} reports it */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Double> commit(UUID token, List<PublishOutcome> outcomes) {
        return claims.stamp(token, outcomes);
    }
}
