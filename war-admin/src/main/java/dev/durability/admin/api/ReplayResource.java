package dev.durability.admin.api;

import dev.durability.admin.boundary.Replays;
import dev.durability.admin.control.Channel;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code POST <context root>/events/replay}: re-publishes a window of the outbox (docs/admin.md). */
@Path("/replay")
public class ReplayResource {

    @Inject
    Replays replays;

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @Tag(name = AdminApi.TAG)
    @SecurityRequirement(name = AdminApi.BEARER)
    @Operation(
            operationId = "replayEvents",
            summary = "Replay a window of the outbox",
            description = "Re-stages, in one UPDATE, the published and unroutable outbox rows created in [from, to),"
                    + " optionally of one event type or only those that came back unroutable. The drains publish"
                    + " them again with the next publication number: consumers that processed an event count a"
                    + " duplicate, consumers that had given up on it run it again. Pending rows in the window are"
                    + " counted, not touched. A dry run only counts. Every call is audit-logged with the token's"
                    + " principal.")
    @Parameter(
            name = "Idempotency-Key",
            in = ParameterIn.HEADER,
            description = "Makes a retry safe: a retry with the same key gets the first answer back, marked"
                    + " Idempotent-Replayed: true, and replays nothing again. 1 to 255 printable ASCII characters,"
                    + " bare or as a quoted string; a fresh UUID per request (docs/idempotency.md)",
            schema = @Schema(type = SchemaType.STRING))
    @APIResponse(
            responseCode = "200",
            description = "The window and scope echoed, with matched, restageable, pending and restaged counts"
                    + " (restaged is 0 on a dry run)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "ReplayResult")))
    @APIResponse(
            responseCode = "400",
            description = "invalid-request: a parameter is missing or invalid (unparsable time, no UTC offset,"
                    + " inverted window); idempotency-key-invalid or idempotency-key-missing: fix the key."
                    + " Nothing ran",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "401",
            description = "No valid bearer token: missing, expired, wrongly signed, or from another issuer or for"
                    + " another audience. WWW-Authenticate names the Bearer scheme. The server's own refusal has"
                    + " no body; the API's (bearer-token-required, for a caller with other credentials) is a"
                    + " problem",
            headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "403",
            description = "forbidden: the token's groups do not include durability-admin",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "409",
            description = "idempotency-request-in-progress: a request with this key is still running; retry after"
                    + " Retry-After",
            headers = @Header(name = "Retry-After", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "422",
            description = "window-beyond-retention: the window starts before the oldest row retention keeps; or"
                    + " idempotency-key-reused: the key was used by another request; send a new key",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "500",
            description = "internal-error: the server failed to answer; the detail's error_id finds the cause in"
                    + " its log",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "503",
            description = "idempotency-unavailable, idempotency-busy or idempotency-not-committed: retry with the"
                    + " same key after Retry-After",
            headers = @Header(name = "Retry-After", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    public JsonObject replay(
            @Parameter(description = "Start of the window, inclusive: RFC 3339 with offset", required = true)
                    @QueryParam("from")
                    String from,
            @Parameter(description = "End of the window, exclusive: RFC 3339 with offset", required = true)
                    @QueryParam("to")
                    String to,
            @Parameter(description = "Only events of this type") @QueryParam("event_type") String eventType,
            @Parameter(
                            description = "all (default): published and unroutable rows; unroutable: only rows the"
                                    + " broker returned as unroutable",
                            schema = @Schema(enumeration = {"all", "unroutable"}))
                    @QueryParam("scope")
                    String scope,
            @Parameter(description = "true: count only, change nothing", schema = @Schema(type = SchemaType.BOOLEAN))
                    @QueryParam("dry_run")
                    String dryRun) {
        return replays.replay(from, to, eventType, scope, dryRun, Channel.BEARER)
                .toJson();
    }
}
