package dev.durability.admin.api;

import dev.durability.admin.control.AdminActionRefused;
import jakarta.ejb.EJBAccessException;
import jakarta.ejb.EJBException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every error of the admin API as problem details: a refusal with its own type and message, a caller the
 * EJBs refuse as 403, the REST runtime's own answers (404, 405...) with their status, anything else as a 500
 * whose {@code error_id} finds the logged cause.
 */
@Provider
public class AdminErrorMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = Logger.getLogger(AdminErrorMapper.class.getName());

    @Override
    public Response toResponse(Throwable error) {
        Throwable cause = error instanceof EJBException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof AdminActionRefused refusal) {
            return AdminProblems.refused(refusal);
        }
        if (error instanceof EJBAccessException) {
            return AdminProblems.problem(403, "forbidden", "Forbidden", "this action needs the durability-admin role");
        }
        if (error instanceof WebApplicationException web) {
            Response.StatusType status = web.getResponse().getStatusInfo();
            return AdminProblems.problem(
                    status.getStatusCode(),
                    "http-" + status.getStatusCode(),
                    status.getReasonPhrase(),
                    "the request was refused: " + status.getReasonPhrase());
        }
        UUID errorId = UUID.randomUUID();
        LOG.log(Level.SEVERE, "Admin API request failed, error_id " + errorId, error);
        return AdminProblems.problem(
                500,
                "internal-error",
                "Internal error",
                "the server failed to answer this request; error_id " + errorId + " identifies the failure in its log");
    }
}
