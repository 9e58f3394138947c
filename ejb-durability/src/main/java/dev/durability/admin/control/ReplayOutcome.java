package dev.durability.admin.control;

import jakarta.json.JsonObject;
import java.io.Serializable;

/**
 * What a replay found and did.
 *
 * @param matched outbox rows created in the window, in scope
 * @param restageable the matched rows a real run re-stages (published or unroutable); the rest are pending
 * @param restaged rows re-staged by this call: 0 on a dry run
 */
public record ReplayOutcome(ReplayRequest request, long matched, long restageable, long restaged)
        implements Serializable {

    /** The answer of the REST API and the audit row's details: the request echoed, then the counts. */
    public JsonObject toJson() {
        return request.toJson()
                .add("matched", matched)
                .add("restageable", restageable)
                .add("pending", matched - restageable)
                .add("restaged", restaged)
                .build();
    }
}
