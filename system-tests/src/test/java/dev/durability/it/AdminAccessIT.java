package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every admin page, over plain HTTP, with every kind of credential that must not open it: none, a forged
 * single sign-on cookie or session id, a user who is not an admin, and the cookies of an operator who signed
 * out (a stolen or left-behind cookie). The API's own credentials are {@link AdminReplayApiIT}'s.
 */
class AdminAccessIT {
    private static final List<String> PAGES = List.of(
            "/admin/", "/admin/index.xhtml", "/admin/replay.xhtml", "/admin/dead-letters.xhtml", "/admin/audit.xhtml");
    private static final String SIGNED_IN = "signed-in-as";

    private final URI server = Coordinates.mainServer();

    @Test
    void withoutACredentialEveryPageAnswersTheSignInFormOnly() throws Exception {
        HttpClient anonymous = browser(new CookieManager());
        for (String page : PAGES) {
            HttpResponse<String> response = get(anonymous, page);
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
                HttpResponse<String> response = getWithCookies(page, cookie);
                assertThat(response.statusCode()).as(page + " with " + cookie).isIn(200, 400);
                assertThat(response.body()).as(page + " with " + cookie).doesNotContain(SIGNED_IN);
            }
        }
    }

    @Test
    void aSignedInUserWhoIsNotAnAdminIsRefusedEveryPage() throws Exception {
        HttpClient ada = browser(new CookieManager());
        signIn(ada, "ada", "ada-demo");
        for (String page : PAGES) {
            HttpResponse<String> response = get(ada, page);
            assertThat(response.statusCode()).as(page).isEqualTo(403);
            assertThat(response.body()).as(page).doesNotContain(SIGNED_IN);
        }
    }

    /** Signing out ends the credential on the server, not only in the browser that signed out. */
    @Test
    void theCookiesOfAnOperatorWhoSignedOutOpenNothingAnyMore() throws Exception {
        CookieManager jar = new CookieManager();
        HttpClient operator = browser(jar);
        signIn(operator, "operator", "operator-demo");
        HttpResponse<String> index = get(operator, "/admin/index.xhtml");
        assertThat(index.body()).contains(SIGNED_IN);
        String leftBehind = jar.getCookieStore().getCookies().stream()
                .map(HttpCookie::toString)
                .collect(Collectors.joining("; "));
        assertThat(leftBehind).contains("LtpaToken2");

        HttpResponse<String> signedOut = operator.send(signOutForm(index.body()), HttpResponse.BodyHandlers.ofString());
        assertThat(signedOut.body()).contains("j_security_check").doesNotContain(SIGNED_IN);

        for (String page : PAGES) {
            HttpResponse<String> response = getWithCookies(page, leftBehind);
            assertThat(response.body())
                    .as(page + " with the cookies from before the sign-out")
                    .contains("j_security_check")
                    .doesNotContain(SIGNED_IN);
        }
    }

    /** What an operator types into the replay form is data: refused with a message, shown as text, never run. */
    @Test
    void hostileValuesInTheReplayFormAreRefusedAndShownAsText() throws Exception {
        HttpClient operator = browser(new CookieManager());
        signIn(operator, "operator", "operator-demo");
        List<String> hostile = List.of(
                "' OR '1'='1'; DROP TABLE event_outbox; --",
                "<script>alert(1)</script>",
                "x".repeat(20_000),
                "a\u0000b\u0001c",
                "\ud800 lone surrogate",
                "2026-13-45T99:99:99Z");
        for (String field : List.of("replay:from", "replay:to", "replay:event-type")) {
            for (String value : hostile) {
                String page = get(operator, "/admin/replay.xhtml").body();
                Map<String, String> fields = AdminForms.hiddenFields(page, "replay");
                fields.put("replay:from", "2026-01-01T00:00:00Z");
                fields.put("replay:to", "2026-01-01T01:00:00Z");
                fields.put("replay:event-type", "order.placed");
                fields.put("replay:scope", "all");
                fields.put("replay:preview", "Preview");
                fields.put(field, value);
                HttpResponse<String> answer =
                        operator.send(form("/admin/replay.xhtml", fields), HttpResponse.BodyHandlers.ofString());
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

    /** A GET carrying exactly these cookies (redirects too), from a client that keeps none of its own. */
    private HttpResponse<String> getWithCookies(String page, String cookies) throws Exception {
        return HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5))
                .build()
                .send(
                        HttpRequest.newBuilder(server.resolve(page))
                                .timeout(Duration.ofSeconds(30))
                                .header("Cookie", cookies)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private HttpClient browser(CookieManager jar) {
        return HttpClient.newBuilder()
                .cookieHandler(jar)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private HttpResponse<String> get(HttpClient client, String page) throws Exception {
        return client.send(
                HttpRequest.newBuilder(server.resolve(page))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void signIn(HttpClient client, String user, String password) throws Exception {
        get(client, "/admin/");
        client.send(
                form("/admin/j_security_check", Map.of("j_username", user, "j_password", password)),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The page's sign-out form as a browser submits it: its hidden fields, the view state among them, and the button. */
    private HttpRequest signOutForm(String page) {
        Map<String, String> fields = AdminForms.hiddenFields(page, "account");
        fields.put("account:sign-out", "Sign out");
        return form("/admin/index.xhtml", fields);
    }

    private HttpRequest form(String path, Map<String, String> fields) {
        return AdminForms.post(server, path, fields);
    }
}
