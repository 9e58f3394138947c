package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every admin page, over HTTPS, with every kind of credential that must not open it: none, a forged
 * single sign-on cookie or session id, a user who is not an admin, and the cookies of an operator who signed
 * out (a stolen or left-behind cookie). An expired sign-in is {@link AdminSignInExpiryIT}'s, the API's own
 * credentials are {@link AdminReplayApiIT}'s.
 */
class AdminAccessIT {
    private static final List<String> PAGES = AdminHttp.PAGES;
    private static final String SIGNED_IN = AdminHttp.SIGNED_IN;

    private final URI server = Coordinates.mainServerHttps();

    /**
     * The admin pages, their sign-in and the API answer plain HTTP with a redirect to the HTTPS port and nothing
     * else: no page, no cookie, no sign-in (the WAR's CONFIDENTIAL transport guarantee, which no server
     * configuration relaxes). Over HTTPS, the session and single sign-on cookies are marked {@code Secure}, so a
     * browser never sends them back over plain HTTP (the shipped server.xml, which the development profile leaves
     * as it is; docs/decisions/0065-admin-over-https-only.md).
     */
    @Test
    void plainHttpIsSentToTheHttpsPortWhoseCookiesAreSecure() throws Exception {
        URI plain = Coordinates.mainServer();
        HttpClient noRedirects = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        List<HttpRequest> plainRequests = new ArrayList<>();
        for (String page : Stream.concat(PAGES.stream(), Stream.of("/admin/login.xhtml", "/admin/error.html"))
                .toList()) {
            plainRequests.add(HttpRequest.newBuilder(plain.resolve(page)).build());
        }
        String tokenUser = "plain-http-" + UUID.randomUUID();
        plainRequests.add(HttpRequest.newBuilder(plain.resolve(
                        "/admin/events/replay?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z&dry_run=true"))
                .header("Authorization", "Bearer " + AdminTokens.admin(tokenUser))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        for (HttpRequest request : plainRequests) {
            HttpResponse<String> response = noRedirects.send(request, HttpResponse.BodyHandlers.ofString());
            String what = request.method() + " " + request.uri();
            assertThat(response.statusCode()).as(what).isEqualTo(302);
            assertThat(response.headers().firstValue("Location"))
                    .as(what)
                    .hasValue(server.resolve(request.uri().getRawPath()) + query(request.uri()));
            assertThat(response.headers().allValues("Set-Cookie")).as(what).isEmpty();
            assertThat(response.body())
                    .as(what)
                    .doesNotContain("j_security_check")
                    .doesNotContain(SIGNED_IN);
        }
        assertThat(new AdminTables(Coordinates.mainSchema()).auditOf(tokenUser))
                .as("the replay sent over plain HTTP did not run")
                .isEmpty();
        // The container checks a sign-in posted to plain HTTP (no page of the server's posts there: the form is
        // served over HTTPS only) before the transport guarantee, but signs nobody in: no session, no sign-on cookie.
        HttpResponse<String> plainSignIn = noRedirects.send(
                AdminForms.post(
                        plain,
                        "/admin/j_security_check",
                        Map.of("j_username", "operator", "j_password", "operator-demo")),
                HttpResponse.BodyHandlers.ofString());
        assertThat(plainSignIn.headers().allValues("Set-Cookie"))
                .noneMatch(cookie -> cookie.startsWith("LtpaToken2=") || cookie.startsWith("JSESSIONID="));
        assertThat(plainSignIn.body()).doesNotContain(SIGNED_IN);

        AdminHttp operator = new AdminHttp(server);
        HttpResponse<String> signInPage = operator.get("/admin/");
        HttpResponse<String> signedIn = operator.send(AdminForms.post(
                server, "/admin/j_security_check", Map.of("j_username", "operator", "j_password", "operator-demo")));
        assertThat(signedIn.body()).contains(SIGNED_IN);
        List<String> cookies =
                Stream.concat(setCookies(signInPage), setCookies(signedIn)).toList();
        assertThat(cookies)
                .anyMatch(cookie -> cookie.startsWith("JSESSIONID="))
                .anyMatch(cookie -> cookie.startsWith("LtpaToken2="))
                .allSatisfy(cookie -> assertThat(cookie).containsIgnoringCase("; Secure"));
    }

    @Test
    void withoutACredentialEveryPageAnswersTheSignInFormOnly() throws Exception {
        AdminHttp anonymous = new AdminHttp(server);
        for (String page : PAGES) {
            HttpResponse<String> response = anonymous.get(page);
            assertThat(response.statusCode()).as(page).isEqualTo(200);
            assertThat(response.body()).as(page).contains("j_security_check").doesNotContain(SIGNED_IN);
        }
    }

    @Test
    void aForgedSingleSignOnCookieOrSessionIdOpensNoPage() throws Exception {
        byte[] noise = new byte[300];
        new java.util.Random(42).nextBytes(noise);
        List<String> forgeries = List.of(
                "LtpaToken2=" + Base64.getEncoder().encodeToString(noise),
                "LtpaToken2=<script>alert(1)</script>",
                "LtpaToken2=" + "A".repeat(8_000),
                "JSESSIONID=0000" + "x".repeat(23) + ":-1",
                "JSESSIONID=' OR '1'='1");
        for (String page : PAGES) {
            for (String cookie : forgeries) {
                HttpResponse<String> response = AdminHttp.getWithCookies(server, page, cookie);
                assertThat(response.statusCode()).as(page + " with " + cookie).isIn(200, 400);
                assertThat(response.body()).as(page + " with " + cookie).doesNotContain(SIGNED_IN);
            }
        }
    }

    @Test
    void aSignedInUserWhoIsNotAnAdminIsRefusedEveryPage() throws Exception {
        AdminHttp ada = new AdminHttp(server);
        ada.signIn("ada", "ada-demo");
        for (String page : PAGES) {
            HttpResponse<String> response = ada.get(page);
            assertThat(response.statusCode()).as(page).isEqualTo(403);
            assertThat(response.body()).as(page).doesNotContain(SIGNED_IN);
        }
    }

    /**
     * Session fixation: the session id a browser held before it signed in (issued to the anonymous sign-in page,
     * or planted by someone else) is not the signed-in operator's.
     */
    @Test
    void signingInGivesTheBrowserANewSessionId() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        assertThat(operator.get("/admin/").body()).contains("j_security_check");
        String beforeSignIn = operator.cookie("JSESSIONID");
        assertThat(beforeSignIn).as("the session of the anonymous sign-in page").isNotNull();

        // The credentials posted with that session, as the sign-in form posts them.
        HttpResponse<String> signIn = operator.send(AdminForms.post(
                server, "/admin/j_security_check", Map.of("j_username", "operator", "j_password", "operator-demo")));
        assertThat(signIn.body()).contains(SIGNED_IN);
        String signedIn = operator.cookie("JSESSIONID");
        assertThat(signedIn).isNotNull().isNotEqualTo(beforeSignIn);
        assertThat(operator.get("/admin/replay.xhtml").body()).contains(SIGNED_IN);
        assertThat(operator.cookie("JSESSIONID"))
                .as("rotated once, at the sign-in")
                .isEqualTo(signedIn);
    }

    /**
     * A signed-in operator's session id without the operator's sign-in (a copied cookie, or one that outlived its
     * single sign-on token) is expected hostile input: it gets the sign-in page and one log line, not a server error
     * with a stack trace.
     */
    @Test
    void aSignedInSessionIdPresentedAnonymouslyGetsTheSignInPageAndOneLogLine() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        assertThat(operator.signIn("operator", "operator-demo").body()).contains(SIGNED_IN);
        String sessionOnly = "JSESSIONID=" + operator.cookie("JSESSIONID");

        ServerLog log = ServerLog.ofMainServerFromNow();
        // The sign-in page, where a browser lands with the cookie (a page's redirect there drops it in this client).
        HttpResponse<String> response = AdminHttp.getWithCookies(server, "/admin/login.xhtml", sessionOnly);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("j_security_check").doesNotContain(SIGNED_IN);
        assertThat(log.lines())
                .noneMatch(
                        line -> line.contains("SRVE0777E") || line.contains("FFDC1015I") || line.contains("SESN0008E"))
                .filteredOn(line -> line.contains("presented the session id of signed-in user operator"))
                .hasSize(1);
        // The session ended, and with it the operator's sign-in (logoutOnHttpSessionExpire): signing in again works.
        assertThat(operator.get("/admin/index.xhtml").body())
                .contains("j_security_check")
                .doesNotContain(SIGNED_IN);
        assertThat(operator.signIn("operator", "operator-demo").body()).contains(SIGNED_IN);
    }

    /** Signing out ends the credential on the server, not only in the browser that signed out. */
    @Test
    void theCookiesOfAnOperatorWhoSignedOutOpenNothingAnyMore() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        operator.signIn("operator", "operator-demo");
        HttpResponse<String> index = operator.get("/admin/index.xhtml");
        assertThat(index.body()).contains(SIGNED_IN);
        String leftBehind = operator.cookies();
        assertThat(leftBehind).contains("LtpaToken2");

        HttpResponse<String> signedOut = operator.send(signOutForm(index.body()));
        assertThat(signedOut.body()).contains("j_security_check").doesNotContain(SIGNED_IN);

        for (String page : PAGES) {
            HttpResponse<String> response = AdminHttp.getWithCookies(server, page, leftBehind);
            assertThat(response.body())
                    .as(page + " with the cookies from before the sign-out")
                    .contains("j_security_check")
                    .doesNotContain(SIGNED_IN);
        }
    }

    /**
     * A client that offers HTTP/2 (Java's HttpClient and {@code curl --http2} do) gets its page over HTTP/1.1, on
     * TLS as on cleartext. Liberty's upgrade of a request signed in by the single sign-on cookie alone never
     * answered and held a server thread (docs/decisions/0048-http-1-1-only.md).
     */
    @Test
    void aClientOfferingHttp2GetsItsPageOverHttp11() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        operator.signIn("operator", "operator-demo");
        HttpResponse<String> response = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .sslContext(TestServerTls.context())
                .build()
                .send(
                        HttpRequest.newBuilder(server.resolve("/admin/index.xhtml"))
                                .timeout(Duration.ofSeconds(10))
                                .header("Cookie", operator.singleSignOnCookie())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.body()).contains(SIGNED_IN);
    }

    /** What an operator types into the replay form is data: refused with a message, shown as text, never run. */
    @Test
    void hostileValuesInTheReplayFormAreRefusedAndShownAsText() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        operator.signIn("operator", "operator-demo");
        // Form-encoded as they go on the wire.
        List<String> hostile = Stream.concat(
                        Stream.of(
                                        "' OR '1'='1'; DROP TABLE event_outbox; --",
                                        "<script>alert(1)</script>",
                                        "x".repeat(20_000),
                                        "a\u0000b\u0001c",
                                        "2026-13-45T99:99:99Z")
                                .map(value -> URLEncoder.encode(value, StandardCharsets.UTF_8)),
                        // Bytes no browser sends, as no encoder writes them: a lone surrogate's three bytes and a
                        // truncated sequence, both invalid UTF-8.
                        Stream.of("%ED%A0%80+lone+surrogate", "%C3%28"))
                .toList();
        for (String field : List.of("replay:from", "replay:to", "replay:event-type")) {
            for (String value : hostile) {
                String page = operator.get("/admin/replay.xhtml").body();
                Map<String, String> fields = AdminForms.hiddenFields(page, "replay");
                fields.put("replay:from", "2026-01-01T00:00:00Z");
                fields.put("replay:to", "2026-01-01T01:00:00Z");
                fields.put("replay:event-type", "order.placed");
                fields.put("replay:scope", "all");
                fields.put("replay:preview", "Preview");
                fields.remove(field);
                HttpResponse<String> answer =
                        operator.send(AdminForms.post(server, "/admin/replay.xhtml", fields, field, value));
                String what = field + " = " + (value.length() > 60 ? value.substring(0, 60) + "..." : value);
                assertThat(answer.statusCode()).as(what).isEqualTo(200);
                assertThat(answer.body())
                        .as(what)
                        .contains(SIGNED_IN)
                        .doesNotContain("<script>alert(1)</script>")
                        .doesNotContain("Exception");
                if (!field.equals("replay:event-type")) {
                    // An event type is any string (one that looks like SQL simply matches nothing); a window is not.
                    assertThat(answer.body()).as(what).doesNotContain("preview-matched");
                }
            }
        }
    }

    /** The {@code Set-Cookie} values of a response and of the responses that redirected to it. */
    private static Stream<String> setCookies(HttpResponse<?> response) {
        return Stream.iterate(
                        response, Objects::nonNull, r -> r.previousResponse().orElse(null))
                .flatMap(r -> r.headers().allValues("Set-Cookie").stream());
    }

    private static String query(URI uri) {
        return uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
    }

    /** The page's sign-out form as a browser submits it: its hidden fields, the view state among them, and the button. */
    private HttpRequest signOutForm(String page) {
        Map<String, String> fields = AdminForms.hiddenFields(page, "account");
        fields.put("account:sign-out", "Sign out");
        return AdminForms.post(server, "/admin/index.xhtml", fields);
    }
}
