package com.example.shop.web;

import com.example.shop.invoicing.Invoice;
import com.example.shop.invoicing.InvoiceOrders;
import com.example.shop.ordering.Ordering;
import com.example.shop.ordering.ShopOrder;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.UUID;

/** Orders and their invoices, for authenticated customers. */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
public class Orders {
    @Inject
    Ordering ordering;

    @Inject
    InvoiceOrders invoicing;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response place(JsonObject request, @Context SecurityContext caller, @Context UriInfo uri) {
        if (request == null || !request.containsKey("sku") || !request.containsKey("quantity")) {
            return Response.status(400).build();
        }
        ShopOrder order = ordering.place(
                caller.getUserPrincipal().getName(), request.getString("sku"), request.getInt("quantity"));
        return Response.created(uri.getAbsolutePathBuilder()
                        .path(order.id().toString())
                        .build())
                .entity(json(order))
                .build();
    }

    @GET
    @Path("/{id}")
    public Response order(@PathParam("id") UUID id) {
        return ordering.find(id)
                .map(order -> Response.ok(json(order)).build())
                .orElse(Response.status(404).build());
    }

    @GET
    @Path("/{id}/invoices")
    public Response invoices(@PathParam("id") UUID id) {
        List<Invoice> invoices = invoicing.of(id.toString());
        var list = Json.createArrayBuilder();
        invoices.forEach(invoice -> list.add(Json.createObjectBuilder()
                .add("id", invoice.id())
                .add("order_id", invoice.orderId())
                .add("quantity", invoice.quantity())));
        return Response.ok(list.build()).build();
    }

    private static JsonObject json(ShopOrder order) {
        return Json.createObjectBuilder()
                .add("id", order.id().toString())
                .add("customer", order.customer())
                .add("sku", order.sku())
                .add("quantity", order.quantity())
                .build();
    }
}
