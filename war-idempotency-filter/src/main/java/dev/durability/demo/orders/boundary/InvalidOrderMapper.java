package dev.durability.demo.orders.boundary;

import jakarta.ejb.EJBException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** An order the entity refused (an EJB wraps the entity's {@link IllegalArgumentException}) is the client's 400. */
@Provider
public class InvalidOrderMapper implements ExceptionMapper<EJBException> {

    @Override
    public Response toResponse(EJBException exception) {
        Throwable cause = exception;
        while (cause != null) {
            if (cause instanceof IllegalArgumentException invalid) {
                return Problems.badRequest(invalid.getMessage());
            }
            cause = cause.getCause();
        }
        return Problems.problem(Response.Status.INTERNAL_SERVER_ERROR, "internal", "Internal error",
                "the order was not placed; nothing was changed");
    }
}
