package dev.durability.admin.api;

import dev.durability.admin.boundary.Replays;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayOutcome;
import dev.durability.admin.entity.ReplayJobStatus;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
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

/**
 * {@code POST <context root>/events/replay}: re-publishes a window of the outbox as a job, and the job's resource
 * under {@code <context root>/events/replay/jobs/{id}} (docs/admin.md, docs/decisions/0084-replay-as-a-job.md).
 */
@Path("/replay")
public class ReplayResource {
    private static final String JOB_DESCRIPTION = "The job: its window and scope, its state (running, done,"
            + " cancelled, failed), the rows matched when it started and, so far, the rows restaged, the pending rows"
            + " left alone and the slices committed";

    @Inject
    Replays replays;

    @Context
    UriInfo uri;

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @Tag(name = AdminApi.TAG)
    @SecurityRequirement(name = AdminApi.BEARER)
    @Operation(
            operationId = "replayEvents",
            summary = "Replay a window of the outbox",
            description = "Starts a job that re-stages, in slices of bounded transactions, the published and"
                    + " unroutable outbox rows created in [from, to), optionally of one event type or only those that"
                    + " came back unroutable, and answers 202 with the job's resource in Location. The drains publish"
                    + " the rows again with the next publication number: consumers that processed an event count a"
                    + " duplicate, consumers that had given up on it run it again. Pending rows in the window are"
                    + " counted, not touched. One job per overlapping window at a time. A dry run only counts and"
                    + " answers 200. Every call is audit-logged with the token's principal, and so is the job's end.")
    @Parameter(
            name = "Idempotency-Key",
            in = ParameterIn.HEADER,
            description = "Makes a retry safe: a retry with the same key gets the first answer back, marked"
                    + " Idempotent-Replayed: true, and replays nothing again. 1 to 255 printable ASCII characters,"
                    + " bare or as a quoted string; a fresh UUID per request (docs/idempotency.md)",
            schema = @Schema(type = SchemaType.STRING))
    @APIResponse(
            responseCode = "200",
            description = "A dry run: the window and scope echoed, with matched, restageable, pending and restaged"
                    + " (0) counts",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "ReplayResult")))
    @APIResponse(
            responseCode = "202",
            description = "The job started; Location is its resource. " + JOB_DESCRIPTION,
            headers = @Header(name = "Location", schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "ReplayJob")))
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
            description = "replay-running: a job of an overlapping window is running (the detail names it); wait for"
                    + " it to end or cancel it. idempotency-request-in-progress: a request with this key is still"
                    + " running; retry after Retry-After",
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
    public Response replay(
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
        ReplayOutcome outcome = replays.replay(from, to, eventType, scope, dryRun, Channel.BEARER);
        if (outcome.job() == null) {
            return Response.ok(outcome.toJson(), MediaType.APPLICATION_JSON).build();
        }
        return Response.accepted(outcome.job())
                .type(MediaType.APPLICATION_JSON)
                .location(jobUri(outcome.job().id()))
                .build();
    }

    @GET
    @Path("/jobs/{id}")
    @Produces(MediaType.APPLICATION_JSON)
    @Tag(name = AdminApi.TAG)
    @SecurityRequirement(name = AdminApi.BEARER)
    @Operation(operationId = "getReplayJob", summary = "A replay job's state and counts")
    @APIResponse(
            responseCode = "200",
            description = JOB_DESCRIPTION,
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "ReplayJob")))
    @APIResponse(
            responseCode = "401",
            description = "No valid bearer token (see POST /replay)",
            headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "403",
            description = "forbidden: the token's groups do not include durability-admin",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "404",
            description = "not-found: no job has this id",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "500",
            description = "internal-error: the server failed to answer; the detail's error_id finds the cause in"
                    + " its log",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    public ReplayJobStatus job(@Parameter(description = "The job's id (a UUID)") @PathParam("id") String id) {
        return replays.job(id);
    }

    @DELETE
    @Path("/jobs/{id}")
    @Produces(MediaType.APPLICATION_JSON)
    @Tag(name = AdminApi.TAG)
    @SecurityRequirement(name = AdminApi.BEARER)
    @Operation(
            operationId = "cancelReplayJob",
            summary = "Cancel a running replay job",
            description = "Asks the job to stop after the slice it is in: what it restaged stays restaged. Answers"
                    + " 202 once the request is recorded; the job's state turns cancelled when it stopped, and its end"
                    + " is audited with its counts. Audit-logged with the token's principal.")
    @APIResponse(
            responseCode = "202",
            description = "Cancel recorded. " + JOB_DESCRIPTION + "; cancelled_by names who asked",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "ReplayJob")))
    @APIResponse(
            responseCode = "401",
            description = "No valid bearer token (see POST /replay)",
            headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "403",
            description = "forbidden: the token's groups do not include durability-admin",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "404",
            description = "not-found: no job has this id",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "409",
            description = "replay-ended: the job is no longer running (done, cancelled or failed)",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    @APIResponse(
            responseCode = "500",
            description = "internal-error: the server failed to answer; the detail's error_id finds the cause in"
                    + " its log",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE, schema = @Schema(ref = AdminApi.PROBLEM)))
    public Response cancel(@Parameter(description = "The job's id (a UUID)") @PathParam("id") String id) {
        return Response.accepted(replays.cancel(id, Channel.BEARER))
                .type(MediaType.APPLICATION_JSON)
                .build();
    }

    private URI jobUri(String id) {
        return uri.getBaseUriBuilder()
                .path(ReplayResource.class)
                .path("jobs")
                .path(id)
                .build();
    }
}
