package dev.durability.demo.orders.boundary;

import dev.durability.demo.orders.entity.DemoOrder;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;

import java.util.UUID;

/** {@code /api/orders}: place an order (staging {@code order.placed}) and read it back. */
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class OrdersResource {

    @Inject
    OrderService orders;

    @Context
    UriInfo uri;

    /** The body of {@code POST /api/orders}; {@code id} is optional and makes a retried create collide. */
    public record PlaceOrder(UUID id, String customer, String sku, Integer quantity) {
    }

    @POST
    public Response place(PlaceOrder request) {
        if (request == null) {
            return Problems.badRequest("a JSON body {customer, sku, quantity} is required");
        }
        if (request.quantity() == null) {
            return Problems.badRequest("quantity is required");
        }
        UUID id = request.id() == null ? UUID.randomUUID() : request.id();
        UUID eventId;
        try {
            eventId = orders.place(id, request.customer(), request.sku(), request.quantity());
        } catch (EJBException e) {
            if (orders.find(id) != null) {
                return Problems.conflict("order " + id + " already exists; nothing was changed");
            }
            throw e;
        }
        JsonObject body = Json.createObjectBuilder()
                .add("id", id.toString())
                .add("event_id", eventId.toString())
                .build();
        return Response.created(uri.getAbsolutePathBuilder().path(id.toString()).build()).entity(body).build();
    }

    @GET
    @Path("{id}")
    public Response find(@PathParam("id") UUID id) {
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
                .build()).build();
    }
}
