package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.control.EnvelopeJson;
import dev.durability.it.AdminTables.State;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;

/**
 * The admin pages in a real browser (headless Chromium) on the deployed EAR, signed in through the server's form
 * login as the development operator. Each test seeds its own outbox rows (at an instant days back) and dead
 * letters, under event types of its own.
 */
class AdminPagesIT {
    private static final String OPERATOR = "operator";
    private static final String OPERATOR_PASSWORD = "operator-demo";
    private final URI server = Coordinates.mainServerHttps();
    private final AdminTables tables = new AdminTables(Coordinates.mainSchema());
    private final String prefix = "p" + UUID.randomUUID().toString().substring(0, 8);
    private final OffsetDateTime windowStart = OffsetDateTime.now(ZoneOffset.UTC)
            .minusDays(ThreadLocalRandom.current().nextInt(5, 25))
            .minusSeconds(ThreadLocalRandom.current().nextInt(86_400))
            .truncatedTo(ChronoUnit.SECONDS);

    @AfterEach
    void removeBackedOffRows() throws Exception {
        tables.removeBackedOffRows();
    }

    @Test
    void anOperatorPreviewsAReplayConfirmsItAndSeesTheCounts() throws Exception {
        String type = prefix + ".replayed";
        List<EventEnvelope> published = OutboxTable.envelopes(type, 3);
        for (EventEnvelope envelope : published) {
            tables.seedOutbox(envelope, windowStart.plusMinutes(1), State.PUBLISHED);
        }
        EventEnvelope pending = OutboxTable.envelopes(type, 1).get(0);
        tables.seedOutbox(pending, windowStart.plusMinutes(2), State.BACKED_OFF);

        try (AdminBrowser browser = new AdminBrowser(server);
                EventQueue queue = new EventQueue(type)) {
            browser.signIn(OPERATOR, OPERATOR_PASSWORD);
            browser.waitForText(By.id("signed-in-as"), OPERATOR);
            assertThat(browser.waitFor(By.id("outbox-depth")).getText()).matches("[0-9]+");
            // The seeded row keeps a row pending: its age in the two largest units, the exact figure on hover.
            WebElement oldest = browser.driver().findElement(By.id("outbox-oldest"));
            assertThat(oldest.getText()).matches("[0-9]+\\.[0-9] s|[0-9]+ (min|h|d)( [0-9]+ (s|min|h))?");
            assertThat(oldest.getAttribute("title")).matches("[0-9]+\\.[0-9] s");
            browser.screenshot("admin-status");

            browser.driver().findElement(By.id("nav-replay")).click();
            browser.type(By.id("replay:from"), windowStart.toString());
            browser.type(By.id("replay:to"), windowStart.plusHours(1).toString());
            browser.type(By.id("replay:event-type"), type);
            browser.driver().findElement(By.id("replay:preview")).click();
            browser.waitForText(By.id("preview-matched"), "4");
            assertThat(browser.driver()
                            .findElement(By.id("preview-restageable"))
                            .getText())
                    .isEqualTo("3");
            assertThat(browser.driver().findElement(By.id("preview-pending")).getText())
                    .isEqualTo("1");
            browser.screenshot("admin-replay-preview");
            // Nothing changed yet: the preview was a dry run.
            assertThat(tables.outbox(published.get(0).id()).publication()).isZero();

            browser.driver().findElement(By.id("replay:confirm")).click();
            String job = browser.waitFor(By.id("started-job")).getText();
            assertThat(browser.driver()
                            .findElement(By.id("started-restageable"))
                            .getText())
                    .isEqualTo("3");
            // The jobs table shows its progress; Refresh reads it again until the job is done.
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        browser.driver().findElement(By.id("jobs:refresh")).click();
                        return jobCell(browser, job, "job-state").equals("done");
                    });
            assertThat(jobCell(browser, job, "job-restaged")).isEqualTo("3");
            assertThat(jobCell(browser, job, "job-pending")).isEqualTo("1");
            assertThat(jobCell(browser, job, "job-matched")).isEqualTo("4");
            assertThat(browser.driver().findElements(By.cssSelector("tr.job[data-job='" + job + "'] .job-cancel")))
                    .as("no cancel for a job that ended")
                    .isEmpty();
            browser.screenshot("admin-replay-done");

            queue.awaitArrivalOf(published, Duration.ofSeconds(30));
            for (EventEnvelope envelope : published) {
                assertThat(tables.outbox(envelope.id()).publication()).isEqualTo(1);
            }

            browser.driver().findElement(By.id("nav-audit")).click();
            assertThat(browser.waitFor(By.id("actions")).getText())
                    .contains("operator form replay done")
                    .contains(type);
            browser.screenshot("admin-actions");
        }
        List<AdminTables.AuditRow> mine = tables.auditOf(OPERATOR).stream()
                .filter(row -> row.details().contains(type))
                .toList();
        assertThat(mine)
                .extracting(row -> row.action() + " " + row.outcome())
                .containsExactly("replay-preview done", "replay started", "replay done");
        assertThat(mine).allSatisfy(row -> assertThat(row.channel()).isEqualTo("form"));
    }

    /**
     * A redrive resets an outbox row this service staged within the outbox's window, counted from that staging;
     * everything else is refused and changes nothing: an envelope the outbox does not hold (a forged dead letter,
     * or an event retention pruned), a row staged longer ago than the window although its dead letter is new (a
     * replayed event dead-lettered again: its first consumers' dedup records date from the first delivery), and
     * another service's event.
     */
    @Test
    void anOperatorRedrivesOneDeadLetterAndMarksAHostileOneKnownBadSeeingItsMarkupAsText() throws Exception {
        String type = prefix + ".failed";
        String markup = "<script>window.pwned = 1</script><img src=x onerror=window.pwned=2>";
        EventEnvelope hostile = EventEnvelope.builder(type, "orders")
                .payload(Json.createObjectBuilder().add("note", markup).build())
                .build();
        long hostileLetter = tables.seedDeadLetter(hostile.id(), type, "it.some-consumer", EnvelopeJson.write(hostile));
        EventEnvelope existing = OutboxTable.envelopes(type, 1).get(0);
        tables.seedOutbox(existing, windowStart, State.PUBLISHED);
        // The dead letter carries a payload of its own: what goes out again is the outbox row's envelope.
        EventEnvelope altered = new EventEnvelope(
                existing.id(),
                type,
                "orders",
                existing.aggregateId(),
                existing.occurredAt(),
                existing.schemaVersion(),
                existing.correlationId(),
                existing.causationId(),
                Json.createObjectBuilder().add("altered", true).build());
        long existingLetter =
                tables.seedDeadLetter(existing.id(), type, "it.some-consumer", EnvelopeJson.write(altered));
        // Claims to be this service's event, but the outbox never staged it.
        EventEnvelope unknown = OutboxTable.envelopes(type, 1).get(0);
        long unknownLetter = tables.seedDeadLetter(unknown.id(), type, "it.some-consumer", EnvelopeJson.write(unknown));
        // Staged 35 days ago (past the outbox's 30), not yet pruned, dead-lettered today.
        EventEnvelope stale = OutboxTable.envelopes(type, 1).get(0);
        tables.seedOutbox(stale, OffsetDateTime.now(ZoneOffset.UTC).minusDays(35), State.PUBLISHED);
        long staleLetter = tables.seedDeadLetter(stale.id(), type, "it.some-consumer", EnvelopeJson.write(stale));
        // Another service's event: only its producer may publish it again.
        EventEnvelope foreign = EventEnvelope.builder(type, "billing").build();
        long foreignLetter = tables.seedDeadLetter(foreign.id(), type, "it.some-consumer", EnvelopeJson.write(foreign));
        String hostileRowBefore = tables.deadLetterRow(hostileLetter);

        try (AdminBrowser browser = new AdminBrowser(server);
                EventQueue queue = new EventQueue(type)) {
            browser.signIn(OPERATOR, OPERATOR_PASSWORD);
            browser.waitForText(By.id("signed-in-as"), OPERATOR);
            browser.driver().findElement(By.id("nav-dead-letters")).click();
            browser.type(By.id("filter:event-type"), type);
            browser.driver().findElement(By.id("filter:apply")).click();
            await().atMost(Duration.ofSeconds(20)).until(() -> rowOf(browser, hostileLetter) != null);
            browser.screenshot("admin-dead-letters");

            // Shown as text: the markup is on the page as characters, and none of it ran.
            assertThat(rowOf(browser, hostileLetter).getText()).contains(markup);
            assertThat(browser.driver().getPageSource()).doesNotContain("<script>window.pwned");
            assertThat(((JavascriptExecutor) browser.driver()).executeScript("return window.pwned === undefined"))
                    .isEqualTo(true);

            redrive(browser, existingLetter, "Dead letter " + existingLetter + " redriven");
            queue.awaitArrivalOf(List.of(existing), Duration.ofSeconds(30));
            assertThat(queue.messages().get(0).properties().getHeaders().get("x-durability-publication"))
                    .isEqualTo(1);
            assertThat(queue.messages().get(0).body()).doesNotContain("altered");

            assertRedriveRefused(browser, unknownLetter, "this service's outbox holds no event " + unknown.id());
            assertRedriveRefused(browser, staleLetter, "longer ago than the 30 days the outbox keeps events");
            assertRedriveRefused(browser, foreignLetter, "comes from billing");

            browser.driver().findElement(By.id("filter:status")).sendKeys("all");
            browser.driver().findElement(By.id("filter:apply")).click();
            await().atMost(Duration.ofSeconds(20)).until(() -> rowOf(browser, hostileLetter) != null);
            WebElement row = rowOf(browser, hostileLetter);
            row.findElement(By.cssSelector("input[title='note']")).sendKeys("payload is test data <b>bold</b>");
            row.findElement(By.cssSelector("input[value='Known bad']")).click();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> rowOf(browser, hostileLetter) != null
                            && rowOf(browser, hostileLetter)
                                    .findElement(By.className("verdict"))
                                    .getText()
                                    .equals("known-bad"));
            assertThat(rowOf(browser, hostileLetter).getText()).contains("payload is test data <b>bold</b>");
            browser.screenshot("admin-dead-letters-triaged");
        }
        assertThat(tables.triage(existingLetter)).containsExactly("redriven by operator: null");
        assertThat(tables.outbox(existing.id()).publication()).isEqualTo(1);
        for (long refused : List.of(unknownLetter, staleLetter, foreignLetter)) {
            assertThat(tables.triage(refused)).as("dead letter %d", refused).isEmpty();
        }
        assertThat(tables.outbox(unknown.id())).isNull();
        assertThat(tables.outbox(foreign.id())).isNull();
        assertThat(tables.outbox(stale.id()).publication()).isZero();
        Map<Long, JsonObject> redrives = tables.auditOf(OPERATOR).stream()
                .filter(row -> row.action().equals("redrive"))
                .map(row -> Json.createReader(new StringReader(row.details())).readObject())
                .collect(Collectors.toMap(
                        details -> details.getJsonNumber("dead_letter_id").longValue(), details -> details));
        assertThat(redrives.get(existingLetter).getBoolean("restaged")).isTrue();
        assertThat(redrives.get(unknownLetter).getString("refusal")).contains("holds no event");
        assertThat(redrives.get(staleLetter).getString("refusal")).contains("longer ago than the 30 days");
        assertThat(redrives.get(foreignLetter).getString("refusal")).contains("comes from billing");
        assertThat(tables.triage(hostileLetter))
                .containsExactly("known-bad by operator: payload is test data <b>bold</b>");
        assertThat(tables.deadLetterRow(hostileLetter)).isEqualTo(hostileRowBefore);
    }

    private static void assertRedriveRefused(AdminBrowser browser, long letter, String why) {
        redrive(browser, letter, "dead letter " + letter + " cannot be redriven");
        assertThat(browser.driver().findElement(By.id("messages")).getText()).contains(why);
    }

    /** Clicks the letter's Redrive and waits for the page's message to say {@code outcome}. */
    private static void redrive(AdminBrowser browser, long letter, String outcome) {
        rowOf(browser, letter)
                .findElement(By.cssSelector("input[value='Redrive']"))
                .click();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> browser.driver()
                        .findElement(By.id("messages"))
                        .getText()
                        .contains(outcome));
    }

    @Test
    void aSignedInUserWhoIsNotAnAdminIsRefusedAndAWrongPasswordSignsNobodyIn() {
        try (AdminBrowser browser = new AdminBrowser(server)) {
            browser.signIn(OPERATOR, "wrong");
            assertThat(browser.waitFor(By.id("sign-in-failed")).getText()).contains("Wrong user or password");
            browser.screenshot("admin-sign-in-failed");

            browser.driver().manage().deleteAllCookies();
            browser.signIn("ada", "ada-demo");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> browser.driver().getPageSource().contains("Error 403"));
            assertThat(browser.driver().findElements(By.id("signed-in-as"))).isEmpty();
            browser.screenshot("admin-refused-non-admin");
        }
    }

    /**
     * Cross-site request forgery: a form posted with the operator's session cookie but without the view state
     * the page issued (another site cannot read it) is refused and replays nothing; the same post with the
     * page's view state goes through, so the refusal is not an accident of the request's shape.
     */
    @Test
    void aFormPostedWithoutThePagesViewStateChangesNothing() throws Exception {
        AdminHttp client = new AdminHttp(server);
        HttpResponse<String> signedIn = client.signIn(OPERATOR, OPERATOR_PASSWORD);
        assertThat(signedIn.body()).contains(AdminHttp.SIGNED_IN);
        String page = client.get("/admin/replay.xhtml").body();
        // The form as the browser would send it: its hidden fields (the view state among them), then the inputs.
        Map<String, String> fields = AdminForms.hiddenFields(page, "replay");
        String viewState = fields.remove("jakarta.faces.ViewState");
        assertThat(viewState).as(page).isNotBlank();

        String type = prefix + ".forged";
        fields.put("replay:from", windowStart.toString());
        fields.put("replay:to", windowStart.plusHours(1).toString());
        fields.put("replay:event-type", type);
        fields.put("replay:scope", "all");
        fields.put("replay:preview", "Preview");

        long auditBefore = tables.auditCount();
        // A guess in the shape of a view state, and something that is not one at all: expected hostile input, so
        // the expired-form page and one log line each, never a server error (a stack trace and an FFDC incident).
        for (String guess :
                List.of(Base64.getEncoder().encodeToString(new byte[24]), "-1234567890123456789:1234567890")) {
            Map<String, String> forged = new LinkedHashMap<>(fields);
            forged.put("jakarta.faces.ViewState", guess);
            ServerLog log = ServerLog.ofMainServerFromNow();
            HttpResponse<String> refused = client.send(form("/admin/replay.xhtml", forged));
            assertThat(refused.statusCode()).as(guess).isEqualTo(200);
            assertThat(refused.body())
                    .as(guess)
                    .contains("id=\"expired\"")
                    .contains("nothing was changed")
                    .doesNotContain("Exception");
            assertThat(log.lines())
                    .as(guess)
                    .noneMatch(line -> line.contains("SRVE0777E") || line.contains("FFDC1015I"))
                    .filteredOn(line -> line.contains("view state could not be restored"))
                    .hasSize(1);
        }
        HttpResponse<String> withoutState = client.send(form("/admin/replay.xhtml", fields));
        assertThat(withoutState.body()).doesNotContain("preview-matched");
        assertThat(tables.auditCount()).isEqualTo(auditBefore);

        Map<String, String> genuine = new LinkedHashMap<>(fields);
        genuine.put("jakarta.faces.ViewState", viewState);
        HttpResponse<String> accepted = client.send(form("/admin/replay.xhtml", genuine));
        assertThat(accepted.body()).contains("preview-matched");
        assertThat(tables.auditOf(OPERATOR).stream().filter(row -> row.details().contains(type)))
                .hasSize(1);
    }

    private HttpRequest form(String path, Map<String, String> fields) {
        return AdminForms.post(server, path, fields);
    }

    /** The text of one cell of a replay job's row in the jobs table (empty while the page does not show the job). */
    private static String jobCell(AdminBrowser browser, String job, String cell) {
        return browser.driver().findElements(By.cssSelector("tr.job[data-job='" + job + "'] ." + cell)).stream()
                .map(WebElement::getText)
                .findFirst()
                .orElse("");
    }

    /** The table row of one dead letter, or null while the page does not show it. */
    private static WebElement rowOf(AdminBrowser browser, long id) {
        return browser.driver().findElements(By.cssSelector("tr.letter")).stream()
                .filter(row ->
                        row.findElement(By.className("letter-id")).getText().equals(Long.toString(id)))
                .findFirst()
                .orElse(null);
    }
}
