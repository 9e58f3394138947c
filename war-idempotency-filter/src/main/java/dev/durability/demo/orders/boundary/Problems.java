package dev.durability.demo.orders.boundary;

import jakarta.json.Json;
import jakarta.ws.rs.core.Response;

/** RFC 9457 problem details for the demo API's errors. */
final class Problems {
    static final String MEDIA_TYPE = "application/problem+json";

    private Problems() {
    }

    static Response badRequest(String detail) {
        return problem(Response.Status.BAD_REQUEST, "invalid-order", "Invalid order", detail);
    }

    static Response conflict(String detail) {
        return problem(Response.Status.CONFLICT, "order-exists", "Order already exists", detail);
    }

    static Response notFound(String detail) {
        return problem(Response.Status.NOT_FOUND, "order-not-found", "Order not found", detail);
    }

    static Response problem(Response.Status status, String type, String title, String detail) {
        return Response.status(status).type(MEDIA_TYPE).entity(Json.createObjectBuilder()
                .add("type", "https://durability.dev/problems/" + type)
                .add("title", title)
                .add("status", status.getStatusCode())
                .add("detail", detail)
                .build()).build();
    }
}
