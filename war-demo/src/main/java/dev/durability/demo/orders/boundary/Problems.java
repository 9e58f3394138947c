package dev.durability.demo.orders.boundary;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.Response;
import java.util.Locale;
import java.util.UUID;

/**
 * RFC 9457 problem details for the demo API's answers other than success. Each kind of error has its own
 * {@code type}; a {@code detail} is written for the client and never carries an exception's text.
 */
final class Problems {
    static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPES = "https://durability.dev/problems/";

    private Problems() {}

    /** Well-formed JSON that does not describe a valid order: a field missing, of the wrong type, or out of range. */
    static Response invalidOrder(String detail) {
        return problem(Response.Status.BAD_REQUEST, "invalid-order", "Invalid order", detail)
                .build();
    }

    /** A body that is not what the endpoint reads: empty, not UTF-8, not JSON, or JSON of the wrong shape. */
    static Response malformedRequest(String detail) {
        return problem(Response.Status.BAD_REQUEST, "malformed-request", "Malformed request", detail)
                .build();
    }

    static Response bodyTooLarge(String detail) {
        return problem(Response.Status.REQUEST_ENTITY_TOO_LARGE, "body-too-large", "Request body too large", detail)
                .build();
    }

    static Response unsupportedMediaType(String detail) {
        return problem(
                        Response.Status.UNSUPPORTED_MEDIA_TYPE,
                        "unsupported-media-type",
                        "Unsupported media type",
                        detail)
                .build();
    }

    /** Only for a request whose own insert the database refused: it is the one answer that says nothing changed. */
    static Response conflict(String detail) {
        return problem(Response.Status.CONFLICT, "order-exists", "Order already exists", detail)
                .build();
    }

    static Response notFound(String detail) {
        return problem(Response.Status.NOT_FOUND, "order-not-found", "Order not found", detail)
                .build();
    }

    /**
     * The transaction may or may not have committed (the database did not confirm it), so the client must
     * find out, or retry with the same ids, which is safe.
     */
    static Response outcomeUnknown(String detail, UUID errorId, JsonObjectBuilder members) {
        JsonObjectBuilder body = members.add("error_id", errorId.toString());
        return problem(Response.Status.SERVICE_UNAVAILABLE, "outcome-unknown", "Outcome unknown", detail, body)
                .header("Retry-After", "1")
                .build();
    }

    /** An error the client cannot act on; {@code error_id} finds the logged cause. */
    static Response internalError(UUID errorId) {
        return problem(
                        Response.Status.INTERNAL_SERVER_ERROR,
                        "internal-error",
                        "Internal error",
                        "the server failed to answer this request; error_id " + errorId
                                + " identifies the failure in its log",
                        Json.createObjectBuilder().add("error_id", errorId.toString()))
                .build();
    }

    /**
     * A request the REST runtime itself refused (no such path, method, media type...): the status's own
     * phrase as title and a generic detail, since the runtime's message names its internals.
     */
    static Response.ResponseBuilder refused(Response.StatusType status) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(refusal(status.getStatusCode(), status.getReasonPhrase()));
    }

    /** The body of {@link #refused}, for answers written outside the REST runtime. */
    static JsonObject refusal(int status, String reasonPhrase) {
        String title = reasonPhrase == null || reasonPhrase.isBlank() ? "HTTP " + status : reasonPhrase;
        String type =
                title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return body(status, type, title, refusalDetail(status), Json.createObjectBuilder());
    }

    private static String refusalDetail(int status) {
        return switch (status) {
            case 400 -> "the request is malformed";
            case 404 -> "there is nothing at this path";
            case 405 -> "this path does not accept this method; the Allow header lists the methods it accepts";
            case 406 -> "this path answers only in application/json, which the request's Accept header excludes";
            case 415 ->
                "this path reads only application/json bodies in UTF-8; send the Content-Type " + "application/json";
            default -> status >= 500 ? "the server failed to answer this request" : "the request was refused";
        };
    }

    private static Response.ResponseBuilder problem(
            Response.StatusType status, String type, String title, String detail) {
        return problem(status, type, title, detail, Json.createObjectBuilder());
    }

    private static Response.ResponseBuilder problem(
            Response.StatusType status, String type, String title, String detail, JsonObjectBuilder members) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(body(status.getStatusCode(), type, title, detail, members));
    }

    private static JsonObject body(int status, String type, String title, String detail, JsonObjectBuilder members) {
        return Json.createObjectBuilder()
                .add("type", TYPES + type)
                .add("title", title)
                .add("status", status)
                .add("detail", detail)
                .addAll(members)
                .build();
    }
}
