package dev.durability.demo.orders.boundary;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Some requests the REST runtime refuses before any resource or exception mapper sees them (a Content-Type
 * header that is not a media type, for one): it calls {@code sendError}, and the server would answer with
 * its HTML error page. Under {@code /api} such an answer is the same problem details as every other error.
 */
@WebFilter(filterName = "demo-send-error-as-problem", urlPatterns = "/api/*")
public class SendErrorAsProblemFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        chain.doFilter(request, new HttpServletResponseWrapper(response) {
            @Override
            public void sendError(int status) throws IOException {
                sendProblem(status);
            }

            @Override
            public void sendError(int status, String message) throws IOException {
                sendProblem(status); // the message is the runtime's text, not the client's business
            }

            private void sendProblem(int status) throws IOException {
                if (isCommitted()) {
                    throw new IllegalStateException("the response is already committed");
                }
                resetBuffer();
                byte[] problem = Problems.refusal(status, reasonPhrase(status))
                        .toString()
                        .getBytes(StandardCharsets.UTF_8);
                setStatus(status);
                setContentType(Problems.MEDIA_TYPE);
                setContentLength(problem.length);
                getOutputStream().write(problem);
                flushBuffer();
            }
        });
    }

    private static String reasonPhrase(int status) {
        Response.Status known = Response.Status.fromStatusCode(status);
        return known == null ? null : known.getReasonPhrase();
    }
}
