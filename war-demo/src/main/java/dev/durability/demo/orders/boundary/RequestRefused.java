package dev.durability.demo.orders.boundary;

import jakarta.ws.rs.core.Response;

/** A request refused before it reached the order service, with the problem to answer. */
final class RequestRefused extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Response problem;

    RequestRefused(Response problem) {
        // An answer to the client, not a failure: no stack trace to fill in.
        super(null, null, false, false);
        this.problem = problem;
    }

    Response problem() {
        return problem;
    }
}
