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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

/** {@code POST /admin/events/replay}: re-publishes a window of the outbox (docs/admin.md). */
@Path("/replay")
public class ReplayResource {

    @Inject
    Replays replays;

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @SecurityRequirement(name = AdminApi.BEARER)
    @Operation(
            summary = "Replay a window of the outbox",
            description = "Re-stages, in one UPDATE, the published and unroutable outbox rows created in [from, to),"
                    + " optionally of one event type or only those that came back unroutable. The drains publish"
                    + " them again with the next publication number: consumers that processed an event count a"
                    + " duplicate, consumers that had given up on it run it again. Pending rows in the window are"
                    + " counted, not touched. A dry run only counts.")
    @APIResponse(
            responseCode = "200",
            description = "The window and scope echoed, with matched, restageable, pending and restaged counts"
                    + " (restaged is 0 on a dry run)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(
            responseCode = "400",
            description = "A parameter is missing or invalid: unparsable time, no UTC offset, inverted window",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE))
    @APIResponse(responseCode = "401", description = "No bearer token, or an expired or wrongly signed one")
    @APIResponse(responseCode = "403", description = "The token's groups do not include durability-admin")
    @APIResponse(
            responseCode = "422",
            description = "The window starts before the oldest row retention keeps",
            content = @Content(mediaType = AdminProblems.MEDIA_TYPE))
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
