package dev.durability.admin.api;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Refuses to start the admin WAR while the admin API has no key to verify tokens with. Nothing ships at the key's
 * location (the development key's private half is in the repository, so it lives at a development path only), and
 * a server started without a key would refuse every token with nothing in the log but each 401: the deployer
 * learns it here, with the setting named (docs/admin.md).
 */
@WebListener
public class AdminTokenKey implements ServletContextListener {
    static final String LOCATION = "mp.jwt.verify.publickey.location";
    static final String INLINE = "mp.jwt.verify.publickey";

    @Override
    public void contextInitialized(ServletContextEvent event) {
        Config config = ConfigProvider.getConfig();
        Optional<String> problem = problem(
                config.getOptionalValue(INLINE, String.class).orElse(""),
                config.getOptionalValue(LOCATION, String.class).orElse(""));
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
    }

    /** Why the admin API could verify no token with these settings, or empty when it has a key. */
    static Optional<String> problem(String inlineKey, String location) {
        if (!inlineKey.isBlank()) {
            return Optional.empty();
        }
        String setting = LOCATION + " (environment variable MP_JWT_VERIFY_PUBLICKEY_LOCATION)";
        String remedy = ": the admin API could verify no bearer token. Set it to the PEM file or the JWKS URL of the"
                + " identity provider that issues the admin tokens (docs/admin.md)";
        if (location.isBlank()) {
            return Optional.of(setting + " is not set" + remedy);
        }
        String lower = location.toLowerCase(java.util.Locale.ROOT);
        if (lower.startsWith("https:") || lower.startsWith("http:")) {
            return Optional.empty();
        }
        try {
            Path file = lower.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
            if (Files.isRegularFile(file) && Files.isReadable(file)) {
                return Optional.empty();
            }
            return Optional.of(setting + " names " + location + ", where no readable key file is" + remedy);
        } catch (IllegalArgumentException e) { // InvalidPathException too
            return Optional.of(setting + " is neither a file nor a URL: " + location + remedy);
        }
    }
}
