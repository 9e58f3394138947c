package dev.durability.demo.orders.boundary;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Any failure nothing else answered is a generic 500 problem with a random {@code error_id}, logged with
 * the same id and the stack trace. The client gets no exception text, class or stack; without this mapper
 * the server's default one puts the exception's text in a response header.
 */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = Logger.getLogger(UnexpectedErrorMapper.class.getName());

    @Override
    public Response toResponse(Throwable failure) {
        return answer(failure);
    }

    static Response answer(Throwable failure) {
        UUID errorId = UUID.randomUUID();
        LOG.log(Level.SEVERE, failure, () -> "error_id " + errorId + ": a request failed unexpectedly; answered 500");
        return Problems.internalError(errorId);
    }
}
