package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@code Idempotency-Key} header lines come from any client: they are a key of 1 to 255 printable ASCII characters
 * or an {@link IdempotencyKey.Invalid} (a 400), never another exception, and a key sent quoted with its escapes
 * reads back as itself.
 */
class IdempotencyKeyPropertyTest {

    @Property(tries = 3000)
    void anyHeaderLinesAreAKeyOrInvalid(@ForAll("lines") List<String> lines) {
        Throwable thrown = catchThrowable(() -> {
            IdempotencyKey key = IdempotencyKey.parse(lines);
            assertThat(key.value()).hasSizeBetween(1, IdempotencyKey.MAX_LENGTH);
            assertThat(key.value().chars()).allMatch(c -> c >= 0x20 && c <= 0x7e);
        });
        assertThat(thrown)
                .as("%s", lines)
                .satisfiesAnyOf(
                        t -> assertThat(t).isNull(), t -> assertThat(t).isInstanceOf(IdempotencyKey.Invalid.class));
    }

    @Property
    void aPrintableKeySentQuotedReadsBackAsItself(@ForAll("printableKeys") String key) throws Exception {
        String quoted = "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        assertThat(IdempotencyKey.parse(List.of(quoted)).value()).isEqualTo(key);
    }

    @Property
    void aKeyWithoutQuotesCommasOrSpacesSentBareReadsBackAsItself(@ForAll("bareKeys") String key) throws Exception {
        assertThat(IdempotencyKey.parse(List.of(key)).value()).isEqualTo(key);
    }

    @Example
    void aLongHostileTailAfterTheClosingQuoteIsRefusedQuickly() {
        String hostile = "\"k\";" + "a=".repeat(20_000) + "!";
        long start = System.nanoTime();
        assertThat(catchThrowable(() -> IdempotencyKey.parse(List.of(hostile))))
                .isInstanceOf(IdempotencyKey.Invalid.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Provide
    Arbitrary<List<String>> lines() {
        Arbitrary<String> line = Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(300),
                Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(300),
                Arbitraries.strings().withChars("\"\\;=,? \tkey-1").ofMaxLength(40),
                printableKeys().map(k -> "\"" + k + "\""));
        return line.list().ofMaxSize(3);
    }

    @Provide
    Arbitrary<String> printableKeys() {
        return Arbitraries.strings().withCharRange(' ', '~').ofMinLength(1).ofMaxLength(IdempotencyKey.MAX_LENGTH);
    }

    @Provide
    Arbitrary<String> bareKeys() {
        return Arbitraries.strings()
                .withCharRange('!', '~')
                .excludeChars('"', ',')
                .ofMinLength(1)
                .ofMaxLength(IdempotencyKey.MAX_LENGTH);
    }
}
