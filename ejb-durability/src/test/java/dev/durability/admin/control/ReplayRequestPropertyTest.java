package dev.durability.admin.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A replay's parameters come from an operator's hand or a script: any five strings are a request or an
 * {@link AdminActionRefused} (a 4xx with a message), never another exception, and any window written as RFC 3339
 * reads back as the same instants.
 */
class ReplayRequestPropertyTest {

    @Property(tries = 3000)
    void anyParametersAreARequestOrARefusal(
            @ForAll("parameters") String from,
            @ForAll("parameters") String to,
            @ForAll("parameters") String eventType,
            @ForAll("parameters") String scope,
            @ForAll("parameters") String dryRun) {
        Throwable thrown = catchThrowable(() -> ReplayRequest.parse(from, to, eventType, scope, dryRun));
        assertThat(thrown)
                .satisfiesAnyOf(
                        t -> assertThat(t).isNull(),
                        t -> assertThat(t)
                                .isInstanceOf(AdminActionRefused.class)
                                .hasMessageNotContaining("Exception"));
    }

    @Property
    void aWindowWrittenAsRfc3339ReadsBackAsTheSameInstants(
            @ForAll("instants") OffsetDateTime from, @ForAll("instants") OffsetDateTime to) {
        if (!from.isBefore(to)) {
            return;
        }
        ReplayRequest request =
                ReplayRequest.parse(ReplayRequest.rfc3339(from), ReplayRequest.rfc3339(to), null, null, null);
        assertThat(request.from()).isEqualTo(from);
        assertThat(request.to()).isEqualTo(to);
    }

    @Provide
    Arbitrary<String> parameters() {
        return Arbitraries.oneOf(
                        Arbitraries.strings().all().ofMaxLength(60),
                        Arbitraries.strings().withChars("0123456789-:T Z+.tz").ofMaxLength(35),
                        instants().map(ReplayRequest::rfc3339),
                        Arbitraries.of("true", "false", "all", "unroutable", "", " ", "order.placed"))
                .injectNull(0.1);
    }

    @Provide
    Arbitrary<OffsetDateTime> instants() {
        return Arbitraries.longs()
                .between(-62_000_000_000L, 250_000_000_000L)
                .flatMap(seconds -> Arbitraries.integers()
                        .between(-18 * 3600, 18 * 3600)
                        .map(offset -> OffsetDateTime.ofInstant(
                                Instant.ofEpochSecond(seconds, (seconds & 0xffff) * 1000L),
                                ZoneOffset.ofTotalSeconds(offset / 60 * 60))));
    }
}
