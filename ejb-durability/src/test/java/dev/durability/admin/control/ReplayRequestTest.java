package dev.durability.admin.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.admin.control.AdminActionRefused.Reason;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ReplayRequestTest {
    private static final String FROM = "2026-11-01T00:00:00Z";
    private static final String TO = "2026-11-02T00:00:00Z";

    @Test
    void readsAWindowWithItsDefaults() {
        ReplayRequest request = ReplayRequest.parse(FROM, TO, null, null, null);
        assertThat(request.from()).isEqualTo(OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        assertThat(request.to()).isEqualTo(OffsetDateTime.of(2026, 11, 2, 0, 0, 0, 0, ZoneOffset.UTC));
        assertThat(request.eventType()).isNull();
        assertThat(request.scope()).isEqualTo(ReplayRequest.Scope.ALL);
        assertThat(request.dryRun()).isFalse();
    }

    @Test
    void readsEveryParameterAsGiven() {
        ReplayRequest request = ReplayRequest.parse(FROM, TO, "order.placed", "unroutable", "true");
        assertThat(request.eventType()).isEqualTo("order.placed");
        assertThat(request.scope()).isEqualTo(ReplayRequest.Scope.UNROUTABLE);
        assertThat(request.dryRun()).isTrue();
        assertThat(ReplayRequest.parse(FROM, TO, " ", "", "false").eventType()).isNull();
    }

    @Test
    void acceptsOffsetsFractionsLowerCaseAndAPlusThatAQueryStringDecodedAsASpace() {
        assertThat(ReplayRequest.parse("2026-11-01T01:00:00+01:00", TO, null, null, null)
                        .from())
                .isEqualTo(OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        assertThat(ReplayRequest.parse("2026-11-01T01:00:00 01:00", TO, null, null, null)
                        .from())
                .isEqualTo(OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        assertThat(ReplayRequest.parse("2026-11-01t00:00:00.123456z", TO, null, null, null)
                        .from())
                .isEqualTo(OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 123_456_000, ZoneOffset.UTC));
    }

    @Test
    void writesInstantsAsRfc3339WithSeconds() {
        assertThat(ReplayRequest.rfc3339(OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 0, ZoneOffset.UTC)))
                .isEqualTo("2026-11-01T00:00:00Z");
        assertThat(ReplayRequest.parse(FROM, TO, null, null, "true")
                        .toJson()
                        .build()
                        .getString("from"))
                .isEqualTo(FROM);
    }

    @Test
    void refusesWhatIsMissingUnparsableLocalOrInverted() {
        assertRefused(() -> ReplayRequest.parse(null, TO, null, null, null), "from is required");
        assertRefused(() -> ReplayRequest.parse(FROM, " ", null, null, null), "to is required");
        assertRefused(() -> ReplayRequest.parse("yesterday", TO, null, null, null), "from is not an RFC 3339");
        assertRefused(() -> ReplayRequest.parse("2026-11-01", TO, null, null, null), "from is not an RFC 3339");
        assertRefused(() -> ReplayRequest.parse(FROM, "2026-11-02T00:00:00", null, null, null), "to has no UTC offset");
        assertRefused(() -> ReplayRequest.parse(TO, FROM, null, null, null), "empty or inverted");
        assertRefused(() -> ReplayRequest.parse(FROM, FROM, null, null, null), "empty or inverted");
        assertRefused(() -> ReplayRequest.parse(FROM, TO, null, "some", null), "scope must be all or unroutable");
        assertRefused(() -> ReplayRequest.parse(FROM, TO, null, null, "yes"), "dry_run must be true or false");
        assertRefused(() -> ReplayRequest.parse(FROM, TO, "a.b".repeat(90), null, null), "longer than 255");
        assertRefused(() -> ReplayRequest.parse(FROM, TO, "order.placed\u0000", null, null), "control character");
        assertRefused(() -> ReplayRequest.parse(FROM, TO, "order\r\nplaced", null, null), "control character");
    }

    @Test
    void keepsHostileRawParametersShortInItsAudit() {
        String huge = "x".repeat(10_000);
        String audited = ReplayRequest.rawJson(huge, null, "a'; DROP TABLE x; --", null, null)
                .toString();
        assertThat(audited).hasSizeLessThan(1_000).contains("a'; DROP TABLE x; --");
        assertThat(ReplayRequest.rawJson("a\u0000b", null, null, null, null).getString("from"))
                .isEqualTo("a\uFFFDb");
    }

    private static void assertRefused(Runnable parse, String message) {
        assertThatThrownBy(parse::run)
                .isInstanceOfSatisfying(
                        AdminActionRefused.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_REQUEST))
                .hasMessageContaining(message);
    }
}
