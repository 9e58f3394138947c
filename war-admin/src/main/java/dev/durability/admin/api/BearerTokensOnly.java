package dev.durability.admin.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The admin API serves callers whose bearer token MicroProfile JWT verified, nobody else. The server reads tokens
 * on the API's path (durability.admin.api-paths, liberty-config/durability-admin.xml); a spelling of the path that escapes that match (a path parameter,
 * an encoded letter) would reach this API with the pages' form-login session instead. Without this check such a
 * request would act on a browser's cookies, which is what the API's tokens-only rule exists to prevent
 * (docs/decisions/0037-admin-authentication.md). Before resource matching, so that every path of the API, also one
 * that names no resource, answers the same 401 to a caller without a token.
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public class BearerTokensOnly implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        if (!(request.getSecurityContext().getUserPrincipal() instanceof JsonWebToken)) {
            Response refused = AdminProblems.problem(
                    401,
                    "bearer-token-required",
                    "Bearer token required",
                    "the admin API reads only a bearer token (a JWT) in the Authorization header, at "
                            + request.getUriInfo().getBaseUri().getRawPath()
                            + "...; sessions, cookies and other credentials are not accepted here");
            request.abortWith(Response.fromResponse(refused)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                    .build());
        }
    }
}
