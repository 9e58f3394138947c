package dev.durability.incontainer;

import dev.durability.outbox.OutboxStager;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.util.UUID;

/** A business EJB as an adopting team writes one: container-managed transactions, OutboxStager injected. */
@Stateless
public class OrderLikeService {

    @Inject
    OutboxStager outbox;

    public UUID place(UUID aggregate) {
        return outbox.stage(
                "order.placed",
                aggregate,
                Json.createObjectBuilder().add("ok", true).build());
    }

    /** Stages, then fails the way business code does: a runtime exception rolls the container transaction back. */
    public UUID placeThenFail(UUID aggregate) {
        outbox.stage(
                "order.placed",
                aggregate,
                Json.createObjectBuilder().add("ok", false).build());
        throw new IllegalStateException("the business rule failed after staging");
    }
}
