package dev.durability.demo.orders.boundary;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * The REST runtime's own refusals (no such path, a path parameter that is not a UUID, a method or media type
 * the path does not take) as problem details with the same status. Their messages name the runtime's
 * internals, so none of it reaches the client.
 */
@Provider
public class HttpErrorMapper implements ExceptionMapper<WebApplicationException> {

    @Override
    public Response toResponse(WebApplicationException exception) {
        Response refusal = exception.getResponse();
        if (refusal == null || refusal.getStatus() >= 500) {
            return UnexpectedErrorMapper.answer(exception);
        }
        if (refusal.getStatus() < 400) {
            return refusal; // a redirect or other answer, not an error
        }
        Response.ResponseBuilder problem = Problems.refused(refusal.getStatusInfo());
        // The runtime's 405 lists the methods the path takes: safe to keep, and what the client needs.
        String allow = refusal.getHeaderString(HttpHeaders.ALLOW);
        if (allow != null) {
            problem.header(HttpHeaders.ALLOW, allow);
        }
        return problem.build();
    }
}
