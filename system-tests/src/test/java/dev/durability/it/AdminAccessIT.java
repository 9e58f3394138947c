package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every admin page, over plain HTTP, with every kind of credential that must not open it: none, a forged
 * single sign-on cookie or session id, a user who is not an admin, and the cookies of an operator who signed
 * out (a stolen or left-behind cookie). An expired sign-in is {@link AdminSignInExpiryIT}'s, the API's own
 * credentials are {@link AdminReplayApiIT}'s.
 */
class AdminAccessIT {
    private static final List<String> PAGES = AdminHttp.PAGES;
    private static final String SIGNED_IN = AdminHttp.SIGNED_IN;

    private final URI server = Coordinates.mainServer();

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
     * A client that offers to upgrade to cleartext HTTP/2 (Java's HttpClient and {@code curl --http2} do) gets its
     * page over HTTP/1.1. Liberty's upgrade of a request signed in by the single sign-on cookie alone never
     * answered and held a server thread (docs/decisions/0048-http-1-1-only.md).
     */
    @Test
    void aClientOfferingCleartextHttp2GetsItsPageOverHttp11() throws Exception {
        AdminHttp operator = new AdminHttp(server);
        operator.signIn("operator", "operator-demo");
        HttpResponse<String> response = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
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

    /** The page's sign-out form as a browser submits it: its hidden fields, the view state among them, and the button. */
    private HttpRequest signOutForm(String page) {
        Map<String, String> fields = AdminForms.hiddenFields(page, "account");
        fields.put("account:sign-out", "Sign out");
        return AdminForms.post(server, "/admin/index.xhtml", fields);
    }
}
