package dev.durability.idempotency.control;

import dev.durability.config.control.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The idempotency filter's knobs, {@code durability.idempotency.*}; defaults in ejb-durability's
 * {@code META-INF/microprofile-config.properties}, which every EAR using the filter holds. Checked when the web module starts: a bad value stops it
 * with a message naming the key.
 */
@ApplicationScoped
public class IdempotencyConfig {
    static final String METHODS = "durability.idempotency.methods";
    static final String REQUIRED_PATHS = "durability.idempotency.required-paths";
    static final String ANONYMOUS = "durability.idempotency.anonymous-keyed";
    static final String CLAIM_TIMEOUT = "durability.idempotency.claim-timeout-ms";
    static final String EXPIRY = "durability.idempotency.expiry-seconds";
    static final String MAX_REQUEST = "durability.idempotency.max-request-bytes";
    static final String MAX_RESPONSE = "durability.idempotency.max-response-bytes";
    static final String REPLAYED_HEADERS = "durability.idempotency.replayed-headers";
    static final String POLICY_URL = "durability.idempotency.policy-url";
    static final String TRANSACTION_TIMEOUT = "durability.idempotency.transaction-timeout-seconds";
    static final String OWN_TRANSACTION_PATHS = "durability.idempotency.own-transaction-paths";
    static final String BUFFER_BUDGET = "durability.idempotency.buffer-budget-bytes";

    /**
     * Never stored, never replayed, whatever the configuration says: cookies and credentials belong to the
     * first exchange alone, hop-by-hop fields to one connection, and the length and marker are the replay's own.
     */
    static final Set<String> NEVER_REPLAYED = Set.of(
            "set-cookie",
            "set-cookie2",
            "cookie",
            "authorization",
            "proxy-authorization",
            "www-authenticate",
            "proxy-authenticate",
            "authentication-info",
            "proxy-authentication-info",
            "connection",
            "keep-alive",
            "transfer-encoding",
            "te",
            "trailer",
            "upgrade",
            "content-length",
            "idempotent-replayed");

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "CONNECT");
    private static final Logger LOG = Logger.getLogger(IdempotencyConfig.class.getName());

    @Inject
    @ConfigProperty(name = METHODS)
    List<String> methods;

    @Inject
    @ConfigProperty(name = REQUIRED_PATHS)
    Optional<List<String>> requiredPaths;

    @Inject
    @ConfigProperty(name = ANONYMOUS)
    boolean anonymousKeyed;

    @Inject
    @ConfigProperty(name = CLAIM_TIMEOUT)
    long claimTimeoutMillis;

    @Inject
    @ConfigProperty(name = EXPIRY)
    long expirySeconds;

    @Inject
    @ConfigProperty(name = MAX_REQUEST)
    int maxRequestBytes;

    @Inject
    @ConfigProperty(name = MAX_RESPONSE)
    int maxResponseBytes;

    @Inject
    @ConfigProperty(name = REPLAYED_HEADERS)
    List<String> replayedHeaders;

    @Inject
    @ConfigProperty(name = POLICY_URL)
    String policyUrl;

    @Inject
    @ConfigProperty(name = TRANSACTION_TIMEOUT)
    long transactionTimeoutSeconds;

    @Inject
    @ConfigProperty(name = OWN_TRANSACTION_PATHS)
    Optional<List<String>> ownTransactionPaths;

    @Inject
    @ConfigProperty(name = BUFFER_BUDGET)
    long bufferBudgetBytes;

    private Set<String> keyedMethods;
    private Set<String> replayed;

    void checkAtStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        validate();
        LOG.info(() -> "Idempotency keys: " + this);
    }

    public void validate() {
        Set<String> upper = new TreeSet<>();
        for (String method : methods) {
            String name = method.strip().toUpperCase(Locale.ROOT);
            InvalidConfigurationException.check(
                    name.matches("[A-Z]{1,20}") && !SAFE_METHODS.contains(name),
                    METHODS,
                    String.join(",", methods),
                    "must list HTTP methods that change state (POST, PATCH, PUT, DELETE); safe methods need no key");
            upper.add(name);
        }
        checkPaths(REQUIRED_PATHS, requiredPaths);
        checkPaths(OWN_TRANSACTION_PATHS, ownTransactionPaths);
        InvalidConfigurationException.checkRange(CLAIM_TIMEOUT, claimTimeoutMillis, 1_000, 3_600_000);
        InvalidConfigurationException.checkRange(EXPIRY, expirySeconds, 60, 366L * 86_400);
        InvalidConfigurationException.check(
                expirySeconds * 1000 > claimTimeoutMillis,
                EXPIRY,
                expirySeconds,
                "must be longer than " + CLAIM_TIMEOUT + " (" + claimTimeoutMillis + " ms)");
        InvalidConfigurationException.checkRange(TRANSACTION_TIMEOUT, transactionTimeoutSeconds, 1, 86_400);
        InvalidConfigurationException.check(
                expirySeconds > transactionTimeoutSeconds,
                EXPIRY,
                expirySeconds,
                "must be longer than " + TRANSACTION_TIMEOUT + " (" + transactionTimeoutSeconds + " s)");
        InvalidConfigurationException.checkRange(MAX_REQUEST, maxRequestBytes, 1, 256 * 1024 * 1024);
        InvalidConfigurationException.checkRange(MAX_RESPONSE, maxResponseBytes, 0, 64 * 1024 * 1024);
        long heap = Runtime.getRuntime().maxMemory();
        InvalidConfigurationException.check(
                bufferBudgetBytes >= maxRequestBytes && bufferBudgetBytes <= heap / 2,
                BUFFER_BUDGET,
                bufferBudgetBytes,
                "must hold one body of " + MAX_REQUEST + " (" + maxRequestBytes + " B) and be at most half the "
                        + "heap (" + heap / 2 + " B)");
        Set<String> headers = new TreeSet<>();
        for (String header : replayedHeaders) {
            String name = header.strip().toLowerCase(Locale.ROOT);
            InvalidConfigurationException.check(
                    name.matches("[a-z0-9!#$%&'*+.^_`|~-]+"), REPLAYED_HEADERS, header, "must list header names");
            InvalidConfigurationException.check(
                    !NEVER_REPLAYED.contains(name),
                    REPLAYED_HEADERS,
                    header,
                    "cookies, credentials, hop-by-hop fields, Content-Length and Idempotent-Replayed are never replayed");
            headers.add(name);
        }
        InvalidConfigurationException.check(
                policyUrl.startsWith("https://") || policyUrl.startsWith("http://") || policyUrl.startsWith("/"),
                POLICY_URL,
                policyUrl,
                "must be an absolute http(s) URL or a path on this server");
        keyedMethods = Set.copyOf(upper);
        replayed = Set.copyOf(headers);
    }

    /** Whether requests of this method are keyed at all. */
    public boolean keys(String method) {
        return keyedMethods().contains(method);
    }

    private static void checkPaths(String key, Optional<List<String>> paths) {
        for (String path : paths.orElse(List.of())) {
            InvalidConfigurationException.check(
                    path.startsWith("/") && path.indexOf('*') == (path.endsWith("/*") ? path.length() - 1 : -1),
                    key,
                    path,
                    "each entry must be a path within the application (/api/orders) or a prefix ending in /* "
                            + "(/api/*)");
        }
    }

    /** Whether a request to this path within the application (context path removed) must carry a key. */
    public boolean requiresKey(String path) {
        return matches(requiredPaths, path);
    }

    /**
     * Whether the handler of this path keeps its own transactions, so the filter records its answer after it
     * instead of committing the two together (docs/decisions/0051-answer-commits-with-effects.md).
     */
    public boolean ownTransaction(String path) {
        return matches(ownTransactionPaths, path);
    }

    /**
     * How long the filter's transaction around a handler may run; the request's claim is renewed for as long, so
     * nothing that can still commit outlives it (docs/decisions/0052-claim-renewed-while-running.md).
     */
    public Duration transactionTimeout() {
        return Duration.ofSeconds(transactionTimeoutSeconds);
    }

    /** The bytes of bodies and held answers this module's filter may keep in memory at once. */
    public long bufferBudgetBytes() {
        return bufferBudgetBytes;
    }

    private static boolean matches(Optional<List<String>> paths, String path) {
        for (String required : paths.orElse(List.of())) {
            if (required.endsWith("/*")
                    ? path.startsWith(required.substring(0, required.length() - 1))
                            || path.equals(required.substring(0, required.length() - 2))
                    : path.equals(required)) {
                return true;
            }
        }
        return false;
    }

    /** Whether anonymous requests are keyed too (under an empty subject) instead of passing through. */
    public boolean keysAnonymousRequests() {
        return anonymousKeyed;
    }

    public Duration claimTimeout() {
        return Duration.ofMillis(claimTimeoutMillis);
    }

    public Duration expiry() {
        return Duration.ofSeconds(expirySeconds);
    }

    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /** Whether a replay carries this response header (case-insensitive). */
    public boolean replays(String header) {
        if (replayed == null) {
            validate();
        }
        return replayed.contains(header.toLowerCase(Locale.ROOT));
    }

    /** Where the key policy is published; every error answer links to it. */
    public String policyUrl() {
        return policyUrl;
    }

    private Set<String> keyedMethods() {
        if (keyedMethods == null) {
            validate();
        }
        return keyedMethods;
    }

    @Override
    public String toString() {
        return "methods " + methods + (anonymousKeyed ? ", anonymous requests keyed" : ", anonymous requests pass")
                + ", required on " + requiredPaths.orElse(List.of()) + ", claim " + claimTimeoutMillis
                + " ms, expiry " + expirySeconds + " s, request cap " + maxRequestBytes + " B, response cap "
                + maxResponseBytes + " B, transaction timeout " + transactionTimeoutSeconds + " s"
                + ", own transactions on " + ownTransactionPaths.orElse(List.of()) + ", buffer budget "
                + bufferBudgetBytes + " B";
    }
}
