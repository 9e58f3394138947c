package dev.durability.admin.api;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import java.util.Arrays;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Refuses to start the admin WAR when the server's MicroProfile JWT would not read bearer tokens on this WAR's API.
 * The server reads them only on the paths {@code durability.admin.api-paths} lists (durability-admin.xml's
 * authFilter); the WAR's API is at its context root followed by {@code /events/}, wherever the deployer put it. A
 * context root the variable does not follow would leave the API refusing every token with a 401 and nothing in the
 * log: the deployer learns it here, with the variable and both values named (docs/liberty.md).
 */
@WebListener
public class AdminApiPath implements ServletContextListener {
    static final String API_PATHS = "durability.admin.api-paths";

    @Override
    public void contextInitialized(ServletContextEvent event) {
        Optional<String> problem = problem(
                event.getServletContext().getContextPath(),
                ConfigProvider.getConfig().getOptionalValue(API_PATHS, String.class));
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
    }

    /** The API's path under this context root: what the server's authFilter must match. */
    static String apiPath(String contextPath) {
        return contextPath + "/events/";
    }

    /** Why the server would read no bearer token on this context root's API, or empty when it would. */
    static Optional<String> problem(String contextPath, Optional<String> apiPaths) {
        String wanted = apiPath(contextPath);
        String setting = API_PATHS + " (server.xml variable, or environment variable DURABILITY_ADMIN_API_PATHS)";
        if (apiPaths.isEmpty() || apiPaths.get().isBlank()) {
            return Optional.of(setting + " is not set: include durability-admin.xml in the server's configuration"
                    + " and set it to " + wanted + ", this admin WAR's API (docs/liberty.md)");
        }
        boolean listed =
                Arrays.stream(apiPaths.get().split("\\|")).map(String::trim).anyMatch(wanted::equals);
        if (listed) {
            return Optional.empty();
        }
        return Optional.of(setting + " is " + apiPaths.get() + ", which does not list " + wanted + ", the API of this"
                + " admin WAR (context root " + (contextPath.isEmpty() ? "/" : contextPath) + "): the server would read"
                + " no bearer token there. Set it to " + wanted + " (several paths separated by |; docs/liberty.md)");
    }
}
