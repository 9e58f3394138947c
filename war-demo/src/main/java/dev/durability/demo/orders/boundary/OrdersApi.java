package dev.durability.demo.orders.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The reference service's public REST API, under {@code /api}. Its description at {@code /openapi} (development
 * profile, docs/demo.md) declares HTTP Basic, which the server checks against its registry
 * (docs/decisions/0031-demo-api-authentication.md), so that a generated client sends its credentials; the
 * schemas the operations name are in {@code META-INF/openapi.yaml}; its {@code Problem} is the admin API's too, word
 * for word, so that the merged document holds it once.
 */
@ApplicationPath("api")
@OpenAPIDefinition(
        info =
                @Info(
                        title = "Durability demo orders API",
                        version = "1",
                        description = "Orders of the reference service, each staging an order.placed event."),
        tags = @Tag(name = OrdersApi.TAG, description = "Place orders and read them back"))
@SecurityScheme(
        securitySchemeName = OrdersApi.BASIC,
        type = SecuritySchemeType.HTTP,
        scheme = "basic",
        description = "A user of the server's registry (the development profile's demo users: docs/demo.md)")
public class OrdersApi extends Application {
    static final String BASIC = "ordersBasic";
    static final String TAG = "orders";
    static final String PROBLEM = "Problem";
}
