package dev.durability.admin.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/** The admin REST API's root: {@code /admin/events}, the one path the server reads bearer tokens on. */
@ApplicationPath("/events")
@OpenAPIDefinition(
        info =
                @Info(
                        title = "Durability admin API",
                        version = "1",
                        description = "Operator actions on the event pipeline. Every call needs a bearer token"
                                + " (a JWT) whose groups include durability-admin, and is audit-logged with"
                                + " the token's principal. Errors are RFC 9457 problem details."))
@SecurityScheme(
        securitySchemeName = AdminApi.BEARER,
        type = SecuritySchemeType.HTTP,
        scheme = "bearer",
        bearerFormat = "JWT")
public class AdminApi extends Application {
    static final String BEARER = "adminBearer";
}
