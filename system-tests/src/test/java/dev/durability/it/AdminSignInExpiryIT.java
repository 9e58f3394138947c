package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An operator's sign-in that ran out opens no admin page. A sign-in's single sign-on token (LTPA) expires after
 * the server's {@code <ltpa expiration>} (120 minutes unless a deployment sets it) and its HTTP session idles out
 * after 30; the server judges both by its own wall clock. So this test runs a server whose clock it steps
 * (libfaketime, see {@link LibertyServer#withSteppableClock()}), signs in, moves the clock on by three hours and
 * presents the same cookies. The clock only moves forward, and the server stops with the test. On a schema of its
 * own, so its drain and consumers touch nothing of the shared server's.
 */
class AdminSignInExpiryIT {
    private static final String SCHEMA = "durability_signin_expiry";
    /** Past both the token's expiration and the session's idle timeout. */
    private static final Duration LATER = Duration.ofHours(3);

    @Test
    void theCookiesOfASignInThatRanOutOpenNoPage() throws Exception {
        OutboxTable.dropSchema(SCHEMA);
        try (LibertyServer server = LibertyServer.copyOfMain(
                        "durability-signin-expiry",
                        9197,
                        Map.of("DB_SCHEMA", SCHEMA, "DURABILITY_INSTANCE_NAME", "it-signin-expiry"))
                .withSteppableClock()) {
            server.start();
            server.awaitApplicationStarted();
            AdminHttp operator = new AdminHttp(server.httpsUri());
            assertThat(operator.signIn("operator", "operator-demo").body()).contains(AdminHttp.SIGNED_IN);
            String everyCookie = operator.cookies();
            String singleSignOnOnly = operator.singleSignOnCookie();
            assertThat(singleSignOnOnly).isNotEmpty();
            // Before the clock moves, each credential opens every page: what follows is refused for its age alone.
            for (String page : AdminHttp.PAGES) {
                assertThat(operator.get(page).body()).as(page).contains(AdminHttp.SIGNED_IN);
                assertThat(AdminHttp.getWithCookies(server.httpsUri(), page, singleSignOnOnly)
                                .body())
                        .as(page + " with the single sign-on cookie only")
                        .contains(AdminHttp.SIGNED_IN);
            }

            server.stepClock(LATER);
            await("the server's clock three hours on")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> serverTime(new AdminHttp(server.httpsUri()).get("/admin/"))
                            .isAfter(Instant.now().plus(LATER).minusSeconds(60)));

            for (String page : AdminHttp.PAGES) {
                for (String cookies : new String[] {everyCookie, singleSignOnOnly}) {
                    HttpResponse<String> response = AdminHttp.getWithCookies(server.httpsUri(), page, cookies);
                    assertThat(response.statusCode())
                            .as(page + " with " + cookies)
                            .isEqualTo(200);
                    assertThat(response.body())
                            .as(page + " with the cookies of a sign-in three hours old: " + cookies)
                            .contains("j_security_check")
                            .doesNotContain(AdminHttp.SIGNED_IN);
                }
            }
            // The operator signs in again and is let in: the refusal was the credential's age, not the server.
            AdminHttp again = new AdminHttp(server.httpsUri());
            assertThat(again.signIn("operator", "operator-demo").body()).contains(AdminHttp.SIGNED_IN);
        } finally {
            OutboxTable.dropSchema(SCHEMA);
        }
    }

    /** The server's wall clock, as its answer's {@code Date} header gives it. */
    private static Instant serverTime(HttpResponse<?> response) {
        return ZonedDateTime.parse(
                        response.headers().firstValue("Date").orElseThrow(), DateTimeFormatter.RFC_1123_DATE_TIME)
                .toInstant();
    }
}
