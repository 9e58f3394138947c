package dev.durability.admin.entity;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.bind.annotation.JsonbProperty;
import java.io.Serializable;

/**
 * A replay job as operators see it (docs/admin.md): the REST API's job resource (JSON-B), the admin page's row and
 * the audit's details. Instants are RFC 3339 in UTC.
 *
 * @param state running, done, cancelled or failed
 * @param matched rows of the window in scope when the job started
 * @param restaged rows restaged so far
 * @param pending pending rows of the window left alone so far (on their way already)
 * @param slices slices committed so far
 * @param longestSliceMs the longest slice's transaction, up to its last statement before the commit
 * @param endedAt null while running
 * @param cancelledBy who asked it to stop, or null
 * @param lastError the last failed slice's error, or null
 */
public record ReplayJobStatus(
        String id,
        String from,
        String to,
        @JsonbProperty("event_type") String eventType,
        String scope,
        String state,
        @JsonbProperty("started_by") String startedBy,
        String channel,
        Long matched,
        Long restaged,
        Long pending,
        Integer slices,
        @JsonbProperty("longest_slice_ms") Double longestSliceMs,
        @JsonbProperty("started_at") String startedAt,
        @JsonbProperty("ended_at") String endedAt,
        @JsonbProperty("cancelled_by") String cancelledBy,
        @JsonbProperty("last_error") String lastError)
        implements Serializable {

    public static final String RUNNING = "running";
    public static final String DONE = "done";
    public static final String CANCELLED = "cancelled";
    public static final String FAILED = "failed";

    public boolean running() {
        return RUNNING.equals(state);
    }

    /** The audit's details of the job's end: the window, the job and its counts. */
    public JsonObjectBuilder toAuditJson() {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("job", id)
                .add("from", from)
                .add("to", to)
                .add("scope", scope)
                .add("matched", matched)
                .add("restaged", restaged)
                .add("pending", pending)
                .add("slices", slices);
        json = eventType == null ? json.addNull("event_type") : json.add("event_type", eventType);
        if (cancelledBy != null) {
            json.add("cancelled_by", cancelledBy);
        }
        if (lastError != null) {
            json.add("last_error", lastError);
        }
        return json;
    }
}
