package dev.durability.admin.api;

import dev.durability.admin.control.AdminActionRefused;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.Response;

/** RFC 9457 problem details of the admin API: one {@code type} per kind of refusal, a detail for the operator. */
final class AdminProblems {
    static final String MEDIA_TYPE = "application/problem+json";
    static final String TYPES = "https://durability.dev/problems/admin/";

    private AdminProblems() {}

    static Response refused(AdminActionRefused refusal) {
        return switch (refusal.reason()) {
            case INVALID_REQUEST -> problem(400, "invalid-request", "Invalid request", refusal.getMessage());
            case BEYOND_RETENTION ->
                problem(422, "window-beyond-retention", "Window reaches past retention", refusal.getMessage());
            case NOT_FOUND -> problem(404, "not-found", "Not found", refusal.getMessage());
            case NOT_REDRIVABLE -> problem(409, "not-redrivable", "Not redrivable", refusal.getMessage());
            case REPLAY_RUNNING -> problem(409, "replay-running", "Replay running", refusal.getMessage());
            case REPLAY_ENDED -> problem(409, "replay-ended", "Replay ended", refusal.getMessage());
        };
    }

    static Response problem(int status, String type, String title, String detail) {
        JsonObject body = Json.createObjectBuilder()
                .add("type", TYPES + type)
                .add("title", title)
                .add("status", status)
                .add("detail", detail)
                .build();
        return Response.status(status).type(MEDIA_TYPE).entity(body).build();
    }
}
