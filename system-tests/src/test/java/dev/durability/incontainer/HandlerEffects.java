package dev.durability.incontainer;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.UUID;

/**
 * A test handler's database effect, written in the delivery's transaction exactly as a user's JPA work
 * would be: it exists once committed, and not at all when the delivery rolled back.
 */
@ApplicationScoped
public class HandlerEffects {
    static final String TABLE = LibraryDeployment.SCHEMA + ".inbox_it_effects";

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    public void record(String consumer, UUID envelopeId) {
        em.createNativeQuery("INSERT INTO " + TABLE + " (consumer, envelope_id) VALUES (?1, CAST(?2 AS uuid))")
                .setParameter(1, consumer)
                .setParameter(2, envelopeId.toString())
                .executeUpdate();
    }
}
