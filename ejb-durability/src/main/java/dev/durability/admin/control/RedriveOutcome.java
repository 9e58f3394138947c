package dev.durability.admin.control;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;

/**
 * What a redrive did with a dead letter's envelope.
 *
 * @param restaged whether the envelope was re-staged; false when its outbox row is still pending (the drain
 *     publishes it anyway)
 * @param publication the publication generation it goes out with, or null when not re-staged
 */
public record RedriveOutcome(
        long deadLetterId, UUID envelopeId, String eventType, boolean restaged, Integer publication) {

    public JsonObject toJson() {
        var json = Json.createObjectBuilder()
                .add("dead_letter_id", deadLetterId)
                .add("envelope_id", envelopeId.toString())
                .add("event_type", eventType)
                .add("restaged", restaged);
        return (publication == null ? json.addNull("publication") : json.add("publication", publication)).build();
    }
}
