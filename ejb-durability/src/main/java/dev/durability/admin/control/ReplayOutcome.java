package dev.durability.admin.control;

import dev.durability.admin.entity.ReplayJobStatus;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.Serializable;

/**
 * What a replay request found and did: a dry run counts; a real run starts a job that restages the window in slices
 * (docs/decisions/0084-replay-as-a-job.md).
 *
 * @param matched outbox rows created in the window, in scope
 * @param restageable the matched rows a real run re-stages (published or unroutable); the rest are pending
 * @param job the job a real run started; null on a dry run
 */
public record ReplayOutcome(ReplayRequest request, long matched, long restageable, ReplayJobStatus job)
        implements Serializable {

    /** The dry run's answer and the audit row's details: the request echoed, then the counts (and the job). */
    public JsonObject toJson() {
        JsonObjectBuilder json = request.toJson()
                .add("matched", matched)
                .add("restageable", restageable)
                .add("pending", matched - restageable)
                .add("restaged", 0);
        if (job != null) {
            json.add("job", job.id());
        }
        return json.build();
    }
}
