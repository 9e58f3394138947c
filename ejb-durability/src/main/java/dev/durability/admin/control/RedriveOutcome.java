package dev.durability.admin.control;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;

/**
 * What a redrive did with a dead letter's envelope.
 *
 * @param restaged whether the envelope was re-staged; false when its outbox row is still pending (the drain
 *     publishes it anyway)
 * @param stagedAnew whether retention had pruned the outbox row, so the envelope was staged as a new row
 * @param publication the publication generation it goes out with, or null when not re-staged
 */
public record RedriveOutcome(
        long deadLetterId,
        UUID envelopeId,
        String eventType,
        boolean restaged,
        boolean stagedAnew,
        Integer publication) {

    public JsonObject toJson() {
        var json = Json.createObjectBuilder()
                .add("dead_letter_id", deadLetterId)
                .add("envelope_id", envelopeId.toString())
                .add("event_type", eventType)
                .add("restaged", restaged)
                .add("staged_anew", stagedAnew);
        return (publication == null ? json.addNull("publication") : json.add("publication", publication)).build();
    }
}
