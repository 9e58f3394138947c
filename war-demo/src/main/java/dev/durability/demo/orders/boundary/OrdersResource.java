package dev.durability.demo.orders.boundary;

import dev.durability.demo.orders.entity.DemoOrder;
import dev.durability.demo.orders.entity.InvalidOrderException;
import dev.durability.demo.orders.entity.OrderAlreadyExistsException;
import dev.durability.idempotency.boundary.IdempotencyFilter;
import dev.durability.idempotency.control.IdempotencyKey;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
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
 * {@code /api/orders}: place an order, or many in one transaction (staging {@code order.placed} for each),
 * and read one back. An order belongs to the authenticated caller who placed it: another caller's order is not
 * found (docs/decisions/0064-demo-orders-belong-to-their-caller.md).
 *
 * <p>The body is read here, not bound by JSON-B, so that every malformed request is the client's 400 with a
 * detail naming the problem. Once the order service was called, only the database's refusal of the
 * request's own insert is answered "nothing was changed" (409); any other failure is 503: the transaction
 * may have committed, and a retry with the same ids is safe because it answers 201 or 409.
 */
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = OrdersApi.TAG)
@SecurityRequirement(name = OrdersApi.BASIC)
@APIResponse(
        responseCode = "401",
        description = "No credentials, or a user and password the server's registry does not know. No body;"
                + " WWW-Authenticate names the Basic scheme",
        headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = SchemaType.STRING)))
@APIResponse(
        responseCode = "500",
        description = "The server failed to answer (internal-error); error_id finds the cause in its log",
        content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
public class OrdersResource {
    static final int MAX_ORDER_BYTES = 64 * 1024;
    static final int MAX_BULK_BYTES = 4 * 1024 * 1024;
    static final int MAX_BULK_ORDERS = 10_000;
    private static final String ONE_ORDER = "a JSON object {\"id\" (optional), \"customer\", \"sku\", \"quantity\"}";
    private static final String ORDER_ARRAY = "a JSON array of 1 to " + MAX_BULK_ORDERS + " order objects";
    private static final Logger LOG = Logger.getLogger(OrdersResource.class.getName());

    @Inject
    OrderService orders;

    @Context
    UriInfo uri;

    @Context
    HttpHeaders headers;

    @Context
    SecurityContext security;

    @Context
    HttpServletRequest servletRequest;

    /**
     * With an {@code Idempotency-Key} and no id of the client's, the order's id is derived from the caller, the
     * request line and the key, as the filter scopes the key. Should a server die after the order committed and
     * before the filter recorded the answer, the retry that runs the handler again once the claim expired finds
     * the order there (409, naming it) instead of placing a second one
     * (docs/decisions/0042-keyed-order-ids.md).
     */
    private UUID keyedId() {
        List<String> lines = headers.getRequestHeader(IdempotencyKey.HEADER);
        Principal caller = security.getUserPrincipal();
        if (lines == null || lines.isEmpty() || caller == null) {
            return UUID.randomUUID();
        }
        String key;
        try {
            key = IdempotencyKey.parse(lines).value(); // the quoted and the bare form are one key, as for the filter
        } catch (IdempotencyKey.Invalid e) {
            return UUID.randomUUID(); // the filter answered 400 before this ran, unless it is not deployed
        }
        String query = uri.getRequestUri().getRawQuery();
        String scope = String.join(
                "\n", caller.getName(), "POST", uri.getRequestUri().getRawPath(), query == null ? "" : query, key);
        return UUID.nameUUIDFromBytes(scope.getBytes(StandardCharsets.UTF_8));
    }

    @POST
    @Operation(
            operationId = "placeOrder",
            summary = "Place an order",
            description = "Places one order and stages its order.placed event in the same transaction. The order"
                    + " belongs to the caller: another caller's GET does not find it.")
    @org.eclipse.microprofile.openapi.annotations.parameters.RequestBody( // RequestBody is the body reader here
            required = true,
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "OrderRequest")))
    @Parameter(
            name = "Idempotency-Key",
            in = ParameterIn.HEADER,
            description = "Makes a retry safe: a retry with the same key and body gets the first answer back,"
                    + " marked Idempotent-Replayed: true, and runs nothing. 1 to 255 printable ASCII characters,"
                    + " bare or as a quoted string; a fresh UUID per request (docs/idempotency.md)",
            schema = @Schema(type = SchemaType.STRING))
    @APIResponse(
            responseCode = "201",
            description = "Placed; Location is the order's URL. A retry with the same Idempotency-Key gets this"
                    + " answer again, with Idempotent-Replayed: true",
            headers = @Header(name = "Location", schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "PlacedOrder")))
    @APIResponse(
            responseCode = "400",
            description = "malformed-request: the body is not a JSON object; invalid-order: a member is missing,"
                    + " unknown, of the wrong type or out of range; idempotency-key-invalid or"
                    + " idempotency-key-missing: fix the key. detail names the problem; nothing ran",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "409",
            description = "order-exists: an order with this id exists and nothing was changed; or"
                    + " idempotency-request-in-progress: a request with this key is still running, retry after"
                    + " Retry-After",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "413",
            description = "body-too-large, or idempotency-request-too-large: a keyed request's body is over 2 MiB",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "415",
            description = "unsupported-media-type: the body is not application/json in UTF-8",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "422",
            description = "idempotency-key-reused: the key was used with another body; send a new key",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "503",
            description = "outcome-unknown: the database did not confirm the transaction, order_id (and order_ids)"
                    + " name the orders, and retrying with their ids is safe; or idempotency-unavailable,"
                    + " idempotency-busy, idempotency-not-committed: retry with the same key after Retry-After",
            headers = @Header(name = "Retry-After", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    public Response place(InputStream body) {
        OrderRequest order;
        try {
            JsonValue json = RequestBody.read(headers.getMediaType(), body, MAX_ORDER_BYTES, ONE_ORDER);
            if (json.getValueType() != JsonValue.ValueType.OBJECT) {
                return Problems.malformedRequest("the body must be " + ONE_ORDER + ", was " + RequestBody.kind(json));
            }
            OrderRequest asked = OrderRequest.from(json, "");
            order = asked.identified(keyedId());
            if (asked.id() == null && Boolean.TRUE.equals(servletRequest.getAttribute(IdempotencyFilter.RETAKEN))) {
                // An earlier request with this key left no recorded answer: if its order is there, this is its
                // retry, and its answer is that order's 201 (docs/idempotency.md).
                Optional<UUID> placed = orders.placedEvent(order);
                if (placed.isPresent()) {
                    return created(order.id(), placed.get());
                }
            }
        } catch (RequestRefused e) {
            return e.problem();
        } catch (InvalidOrderException e) {
            return Problems.invalidOrder(e.getMessage());
        }
        UUID eventId;
        try {
            eventId = orders.place(order);
        } catch (InvalidOrderException e) {
            return Problems.invalidOrder(e.getMessage());
        } catch (OrderAlreadyExistsException e) {
            return Problems.conflict("order " + order.id() + " already exists; nothing was changed. GET /api/orders/"
                    + order.id() + " shows it");
        } catch (RuntimeException e) {
            return outcomeUnknown(
                    e,
                    "order " + order.id() + " may or may not have been placed: the database did "
                            + "not confirm the transaction. GET /api/orders/" + order.id() + " tells. Retrying this "
                            + "POST with \"id\": \"" + order.id() + "\" is safe: it answers 201, or 409 if the order "
                            + "was placed",
                    Json.createObjectBuilder().add("order_id", order.id().toString()));
        }
        return created(order.id(), eventId);
    }

    private Response created(UUID orderId, UUID eventId) {
        JsonObject created = Json.createObjectBuilder()
                .add("id", orderId.toString())
                .add("event_id", eventId.toString())
                .build();
        return Response.created(
                        uri.getAbsolutePathBuilder().path(orderId.toString()).build())
                .entity(created)
                .build();
    }

    /** Places 1 to {@value #MAX_BULK_ORDERS} orders in one transaction: all of them, or none. */
    @POST
    @Path("bulk")
    @Operation(
            operationId = "placeOrders",
            summary = "Place 1 to 10000 orders at once",
            description = "Places every order of the array, each with its order.placed event, in one transaction:"
                    + " all of them or none. Ids must differ within the request.")
    @org.eclipse.microprofile.openapi.annotations.parameters.RequestBody( // RequestBody is the body reader here
            required = true,
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "OrderRequests")))
    @Parameter(
            name = "Idempotency-Key",
            in = ParameterIn.HEADER,
            description = "Makes a retry safe: a retry with the same key and body gets the first answer back,"
                    + " marked Idempotent-Replayed: true, and runs nothing. 1 to 255 printable ASCII characters,"
                    + " bare or as a quoted string; a fresh UUID per request (docs/idempotency.md)",
            schema = @Schema(type = SchemaType.STRING))
    @APIResponse(
            responseCode = "201",
            description = "All placed. A retry with the same Idempotency-Key gets this answer again, with"
                    + " Idempotent-Replayed: true",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "PlacedOrders")))
    @APIResponse(
            responseCode = "400",
            description = "malformed-request: the body is not an array of 1 to 10000 objects; invalid-order: an"
                    + " order (named orders[i]) has a member missing, unknown, of the wrong type or out of range,"
                    + " or repeats another's id; idempotency-key-invalid or idempotency-key-missing: fix the"
                    + " key. Nothing ran",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "409",
            description = "order-exists: an order with this id exists and nothing was changed; or"
                    + " idempotency-request-in-progress: a request with this key is still running, retry after"
                    + " Retry-After",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "413",
            description = "body-too-large, or idempotency-request-too-large: a keyed request's body is over 2 MiB",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "415",
            description = "unsupported-media-type: the body is not application/json in UTF-8",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "422",
            description = "idempotency-key-reused: the key was used with another body; send a new key",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    @APIResponse(
            responseCode = "503",
            description = "outcome-unknown: the database did not confirm the transaction, order_id (and order_ids)"
                    + " name the orders, and retrying with their ids is safe; or idempotency-unavailable,"
                    + " idempotency-busy, idempotency-not-committed: retry with the same key after Retry-After",
            headers = @Header(name = "Retry-After", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    public Response placeAll(InputStream body) {
        List<OrderRequest> requests;
        try {
            JsonValue json = RequestBody.read(headers.getMediaType(), body, MAX_BULK_BYTES, ORDER_ARRAY);
            if (json.getValueType() != JsonValue.ValueType.ARRAY) {
                return Problems.malformedRequest("the body must be " + ORDER_ARRAY + ", was " + RequestBody.kind(json));
            }
            requests = identified(json.asJsonArray());
        } catch (RequestRefused e) {
            return e.problem();
        } catch (InvalidOrderException e) {
            return Problems.invalidOrder(e.getMessage());
        }
        List<UUID> ids = requests.stream().map(OrderRequest::id).toList();
        List<UUID> eventIds;
        try {
            eventIds = orders.placeAll(requests);
        } catch (InvalidOrderException e) {
            return Problems.invalidOrder(e.getMessage());
        } catch (OrderAlreadyExistsException e) {
            return Problems.conflict(alreadyExisting(ids) + "; nothing was changed: none of these orders was placed");
        } catch (RuntimeException e) {
            JsonArrayBuilder orderIds = Json.createArrayBuilder();
            ids.forEach(id -> orderIds.add(id.toString()));
            return outcomeUnknown(
                    e,
                    ids.size() + " orders may or may not have been placed, all of them or none: the "
                            + "database did not confirm the transaction. GET /api/orders/" + ids.get(0) + " tells. "
                            + "Retrying this POST with the ids in order_ids is safe: it answers 201, or 409 if the "
                            + "orders were placed",
                    Json.createObjectBuilder()
                            .add("order_id", ids.get(0).toString())
                            .add("order_ids", orderIds));
        }
        JsonArrayBuilder placed = Json.createArrayBuilder();
        for (int i = 0; i < ids.size(); i++) {
            placed.add(Json.createObjectBuilder()
                    .add("id", ids.get(i).toString())
                    .add("event_id", eventIds.get(i).toString()));
        }
        return Response.status(Response.Status.CREATED)
                .entity(Json.createObjectBuilder().add("orders", placed).build())
                .build();
    }

    @GET
    @Path("{id}")
    @Operation(
            operationId = "getOrder",
            summary = "Read an order",
            description = "The caller's order with this id. Another caller's order is not found.")
    @APIResponse(
            responseCode = "200",
            description = "The order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Order")))
    @APIResponse(
            responseCode = "404",
            description = "not-found: the caller has no order with this id, or the id is not a UUID",
            content = @Content(mediaType = Problems.MEDIA_TYPE, schema = @Schema(ref = OrdersApi.PROBLEM)))
    public Response find(@Parameter(description = "The order's id") @PathParam("id") UUID id) {
        DemoOrder order = orders.find(id);
        if (order == null) {
            return Problems.notFound("no order " + id);
        }
        return Response.ok(Json.createObjectBuilder()
                        .add("id", order.id().toString())
                        .add("customer", order.customer())
                        .add("sku", order.sku())
                        .add("quantity", order.quantity())
                        .add("placed_at", order.placedAt().toString())
                        .build())
                .build();
    }

    /** The array's orders, each with an id (random where the client sent none), refusing an id sent twice. */
    private static List<OrderRequest> identified(JsonArray items) throws RequestRefused {
        if (items.isEmpty() || items.size() > MAX_BULK_ORDERS) {
            throw new RequestRefused(
                    Problems.malformedRequest("the body must be " + ORDER_ARRAY + ", had " + items.size()));
        }
        List<OrderRequest> requests = new ArrayList<>(items.size());
        Map<UUID, Integer> indexOfId = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            OrderRequest request = OrderRequest.from(items.get(i), "orders[" + i + "]");
            if (request.id() != null) {
                Integer first = indexOfId.putIfAbsent(request.id(), i);
                if (first != null) {
                    throw new InvalidOrderException(
                            "orders[" + i + "].id",
                            "repeats the id of orders[" + first + "]; each order needs its own id");
                }
            }
            requests.add(request.identified());
        }
        return requests;
    }

    /** Names the request's orders that exist, as far as a look-up after the refusal can tell. */
    private String alreadyExisting(List<UUID> ids) {
        Set<UUID> existing;
        try {
            existing = orders.existing(ids);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "could not look up which orders of a refused bulk request exist", e);
            existing = Set.of();
        }
        for (int i = 0; i < ids.size(); i++) {
            if (existing.contains(ids.get(i))) {
                String first = "order " + ids.get(i) + " (orders[" + i + "]) already exists";
                return existing.size() == 1
                        ? first
                        : first + ", and " + (existing.size() - 1) + " more of these orders";
            }
        }
        return "an order with one of these ids already exists";
    }

    /**
     * The service failed after it may have committed: the answer says so, with the order ids, and the
     * failure is logged under the error id it carries.
     */
    private static Response outcomeUnknown(RuntimeException failure, String detail, JsonObjectBuilder members) {
        UUID errorId = UUID.randomUUID();
        LOG.log(
                Level.WARNING,
                failure,
                () -> "error_id " + errorId + ": placing orders failed and the transaction "
                        + "may or may not have committed; answered 503 outcome-unknown");
        return Problems.outcomeUnknown(detail, errorId, members);
    }
}
