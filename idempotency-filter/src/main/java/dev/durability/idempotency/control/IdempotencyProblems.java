package dev.durability.idempotency.control;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The filter's own answers, RFC 9457 problem details with a {@code type} per idempotency error (a key
 * mismatch 422 is never the application's validation error), each linking to the published key policy
 * ({@code Link: <policy>; rel="help"} and a {@code policy} member). Status codes as the IETF
 * {@code Idempotency-Key} header draft gives them.
 */
public final class IdempotencyProblems {
    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPES = "https://durability.dev/problems/";

    private final String policyUrl;

    public IdempotencyProblems(String policyUrl) {
        this.policyUrl = policyUrl;
    }

    public void invalidKey(HttpServletResponse response, String detail) throws IOException {
        send(response, 400, "idempotency-key-invalid", "Invalid Idempotency-Key", detail, Json.createObjectBuilder());
    }

    public void missingKey(HttpServletResponse response) throws IOException {
        send(
                response,
                400,
                "idempotency-key-missing",
                "Idempotency-Key required",
                "this path requires an Idempotency-Key header: send a fresh random value (a UUID) with each new "
                        + "request and the same value when you retry it",
                Json.createObjectBuilder());
    }

    public void requestTooLarge(HttpServletResponse response, int maxBytes) throws IOException {
        response.setHeader("Connection", "close"); // the rest of the body is not read
        send(
                response,
                413,
                "idempotency-request-too-large",
                "Request body too large for an idempotent request",
                "a request with an Idempotency-Key may have a body of at most " + maxBytes + " bytes",
                Json.createObjectBuilder().add("max_bytes", maxBytes));
    }

    public void inProgress(HttpServletResponse response, Duration claimLeft) throws IOException {
        long seconds = Math.max(1, (claimLeft.toMillis() + 999) / 1000);
        response.setHeader("Retry-After", Long.toString(seconds));
        send(
                response,
                409,
                "idempotency-request-in-progress",
                "A request with this Idempotency-Key is in progress",
                "another request with this Idempotency-Key is still being processed; retry after " + seconds
                        + " s to get its result",
                Json.createObjectBuilder());
    }

    public void bodyMismatch(HttpServletResponse response) throws IOException {
        send(
                response,
                422,
                "idempotency-key-reused",
                "Idempotency-Key reused for another request",
                "this Idempotency-Key was used with a different request body; send a new key for a new request",
                Json.createObjectBuilder());
    }

    public void unavailable(HttpServletResponse response) throws IOException {
        response.setHeader("Retry-After", "1");
        send(
                response,
                503,
                "idempotency-unavailable",
                "Idempotency records unavailable",
                "the server could not check this Idempotency-Key, so it did not run the request; retry with the "
                        + "same key",
                Json.createObjectBuilder());
    }

    public void busy(HttpServletResponse response) throws IOException {
        response.setHeader("Retry-After", "1");
        response.setHeader("Connection", "close"); // the body is not read
        send(
                response,
                503,
                "idempotency-busy",
                "Too many keyed requests in progress",
                "the server holds as many keyed request bodies as it may at once, so it did not read or run this "
                        + "request; retry with the same key",
                Json.createObjectBuilder());
    }

    public void notCommitted(HttpServletResponse response) throws IOException {
        response.setHeader("Retry-After", "1");
        send(
                response,
                503,
                "idempotency-not-committed",
                "Request not committed",
                "the request ran, but its effects and its recorded answer could not be committed together, so "
                        + "neither was kept; retry with the same key",
                Json.createObjectBuilder());
    }

    private void send(
            HttpServletResponse response, int status, String type, String title, String detail, JsonObjectBuilder extra)
            throws IOException {
        byte[] body = Json.createObjectBuilder()
                .add("type", TYPES + type)
                .add("title", title)
                .add("status", status)
                .add("detail", detail)
                .add("policy", policyUrl)
                .addAll(extra)
                .build()
                .toString()
                .getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(MEDIA_TYPE);
        response.setHeader("Link", "<" + policyUrl + ">; rel=\"help\"");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
