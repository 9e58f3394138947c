package dev.durability.it;

import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A browser on the admin pages over HTTPS: its own cookie jar, redirects followed, and the form sign-in as
 * the server's login page posts it. For tests of what a credential opens; {@link AdminBrowser} drives the pages
 * themselves.
 */
final class AdminHttp {
    /** Every admin page. */
    static final List<String> PAGES = List.of(
            "/admin/", "/admin/index.xhtml", "/admin/replay.xhtml", "/admin/dead-letters.xhtml", "/admin/audit.xhtml");
    /** What a page shows only to a signed-in operator. */
    static final String SIGNED_IN = "signed-in-as";

    private final URI server;
    /** Where the admin WAR is deployed: the reference deployment's {@code /admin}, or another (AdminContextRootIT). */
    private final String contextRoot;

    private final CookieManager jar = new CookieManager();
    private final HttpClient client;

    AdminHttp(URI server) {
        this(server, "/admin");
    }

    AdminHttp(URI server, String contextRoot) {
        this.server = server;
        this.contextRoot = contextRoot;
        this.client = HttpClient.newBuilder()
                .cookieHandler(jar)
                .sslContext(TestServerTls.context())
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** Opens the admin pages, posts the sign-in form and answers the page the server then sends. */
    HttpResponse<String> signIn(String user, String password) throws Exception {
        get(contextRoot + "/");
        return send(AdminForms.post(
                server, contextRoot + "/j_security_check", Map.of("j_username", user, "j_password", password)));
    }

    HttpResponse<String> get(String page) throws Exception {
        return send(pageRequest(server, page).build());
    }

    HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The cookies this browser holds, as a {@code Cookie} header would carry them. */
    String cookies() {
        return cookieHeader(cookie -> true);
    }

    /** The value of this browser's cookie {@code name}, or null while it holds none. */
    String cookie(String name) {
        return jar.getCookieStore().getCookies().stream()
                .filter(cookie -> cookie.getName().equals(name))
                .map(HttpCookie::getValue)
                .findFirst()
                .orElse(null);
    }

    /** The single sign-on cookie alone, as a {@code Cookie} header would carry it. */
    String singleSignOnCookie() {
        return cookieHeader(cookie -> cookie.getName().equals("LtpaToken2"));
    }

    private String cookieHeader(Predicate<HttpCookie> which) {
        return jar.getCookieStore().getCookies().stream()
                .filter(which)
                .map(HttpCookie::toString)
                .collect(Collectors.joining("; "));
    }

    /** A GET carrying exactly these cookies (redirects too), from a client that keeps none of its own. */
    static HttpResponse<String> getWithCookies(URI server, String page, String cookies) throws Exception {
        return HttpClient.newBuilder()
                .sslContext(TestServerTls.context())
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5))
                .build()
                .send(
                        pageRequest(server, page).header("Cookie", cookies).build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder pageRequest(URI server, String page) {
        return HttpRequest.newBuilder(server.resolve(page)).timeout(Duration.ofSeconds(30));
    }
}
