package dev.durability.demo.orders.boundary;

import dev.durability.demo.orders.entity.InvalidOrderException;
import jakarta.ejb.EJBException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * An order the entity refused (the EJB wraps its {@link InvalidOrderException}) is the client's 400;
 * any other failure of the service is a 500 that says nothing was changed.
 */
@Provider
public class InvalidOrderMapper implements ExceptionMapper<EJBException> {

    @Override
    public Response toResponse(EJBException exception) {
        Throwable cause = exception;
        while (cause != null) {
            if (cause instanceof InvalidOrderException invalid) {
                return Problems.badRequest(invalid.getMessage());
            }
            cause = cause.getCause();
        }
        return Problems.problem(Response.Status.INTERNAL_SERVER_ERROR, "internal", "Internal error",
                "the request failed; nothing was changed");
    }
}
