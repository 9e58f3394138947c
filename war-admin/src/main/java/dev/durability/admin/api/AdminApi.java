package dev.durability.admin.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The admin REST API's root: {@code /events} under the admin WAR's context root ({@code /admin/events} in the
 * reference deployment), the one path the server reads bearer tokens on (docs/liberty.md). Its description
 * at {@code /openapi} (development profile, docs/admin.md) declares the bearer scheme so that a generated client
 * sends its token; the schemas the operations name are in {@code META-INF/openapi.yaml}.
 */
@ApplicationPath("/events")
@OpenAPIDefinition(
        info =
                @Info(
                        title = "Durability admin API",
                        version = "1",
                        description = "Operator actions on the event pipeline. Every call needs a bearer token"
                                + " (a JWT) whose groups include durability-admin, and is audit-logged with"
                                + " the token's principal. Errors are RFC 9457 problem details."),
        tags = @Tag(name = AdminApi.TAG, description = "Operator actions on the outbox's events"))
@SecurityScheme(
        securitySchemeName = AdminApi.BEARER,
        type = SecuritySchemeType.HTTP,
        scheme = "bearer",
        bearerFormat = "JWT",
        description = "A JWT from the deployment's identity provider whose groups include durability-admin"
                + " (docs/admin.md)")
public class AdminApi extends Application {
    static final String BEARER = "adminBearer";
    static final String TAG = "admin";
    static final String PROBLEM = "Problem";
}
