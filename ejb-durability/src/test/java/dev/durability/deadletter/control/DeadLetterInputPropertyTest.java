package dev.durability.deadletter.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;

/**
 * The dead-letter queue reads headers anyone who can publish to it may have written: an {@code x-death} header of
 * any shape is read as its latest entry or as nothing, never as an exception, and an occurrence token is either a
 * bounded printable value or no token.
 */
class DeadLetterInputPropertyTest {

    @Property(tries = 2000)
    void anyXDeathHeaderIsReadAsAnEntryOrAsNothing(@ForAll("headers") Map<String, Object> headers) {
        Optional<XDeath> latest = XDeath.latest(headers);
        latest.ifPresent(entry -> {
            assertThat(entry.queue()).isNotEmpty();
            assertThat(entry.reason()).isNotEmpty();
            assertThat(entry.count()).isPositive();
        });
        assertThat(XDeath.json(headers)).isNotNull();
    }

    @Property(tries = 2000)
    void aTokenIsBoundedPrintableAndPrefixedOrNoToken(@ForAll("tokens") String token) {
        OccurrenceToken.valid(token).ifPresent(valid -> {
            assertThat(valid).isEqualTo(token).hasSizeLessThanOrEqualTo(OccurrenceToken.MAX_BYTES);
            assertThat(valid.startsWith(OccurrenceToken.APPLICATION) || valid.startsWith(OccurrenceToken.BROKER))
                    .isTrue();
            assertThat(valid.chars()).allMatch(c -> c >= 0x21 && c <= 0x7e);
        });
    }

    @Property
    void theApplicationsOwnTokensAreValid(
            @ForAll @AlphaChars @StringLength(min = 1, max = 150) String queue, @ForAll long receivedMicros) {
        String token = OccurrenceToken.application(UUID.randomUUID(), queue, receivedMicros);
        assertThat(OccurrenceToken.valid(token)).contains(token);
    }

    @Property(tries = 1000)
    void anyMessageOnTheDeadLetterQueueIsReadAsADeadLetter(
            @ForAll("headers") Map<String, Object> headers, @ForAll("bodies") byte[] body) {
        var properties = new com.rabbitmq.client.AMQP.BasicProperties.Builder()
                .headers(headers)
                .build();
        IncomingDeadLetter letter = IncomingDeadLetter.read("dlq.some.queue", properties, body);
        assertThat(letter).isNotNull();
        assertThat(letter.content().json() != null || letter.content().raw() != null)
                .isTrue();
    }

    @Example
    void aDeeplyNestedBodyIsKeptAsRawBytes() {
        byte[] nested = ("[".repeat(5_000) + "]".repeat(5_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        IncomingDeadLetter letter = IncomingDeadLetter.read(
                "dlq.some.queue", new com.rabbitmq.client.AMQP.BasicProperties.Builder().build(), nested);
        assertThat(letter.content().raw()).isEqualTo(nested);
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
                Arbitraries.strings()
                        .withChars("{}[]\":,0123456789abcdefnulltrue ")
                        .ofMaxLength(300)
                        .map(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                Arbitraries.integers()
                        .between(900, 1_200)
                        .map(depth -> ("{\"payload\":" + "[".repeat(depth) + "]".repeat(depth) + "}")
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Provide
    Arbitrary<Map<String, Object>> headers() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(30).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.integers().map(i -> (Object) i),
                Arbitraries.just((Object) null),
                Arbitraries.longs()
                        .between(-10_000_000_000_000L, 10_000_000_000_000L)
                        .map(ms -> (Object) Date.from(Instant.ofEpochMilli(ms))),
                Arbitraries.strings().ofMaxLength(10).map(s -> (Object) s.getBytes()));
        Arbitrary<Object> entry = Arbitraries.maps(
                        Arbitraries.of("queue", "reason", "count", "time", "exchange", "routing-keys", "x"), scalar)
                .ofMaxSize(7)
                .map(m -> (Object) new HashMap<>(m));
        Arbitrary<Object> deathValue = Arbitraries.oneOf(
                entry.list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l)),
                scalar,
                scalar.list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l)),
                entry.list().ofMaxSize(2).map(l -> (Object) List.of(new ArrayList<>(l))));
        return deathValue.map(value -> {
            Map<String, Object> headers = new HashMap<>();
            headers.put(XDeath.HEADER, value);
            return headers;
        });
    }

    @Provide
    Arbitrary<String> tokens() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(300),
                Arbitraries.strings().all().ofMaxLength(300).map(s -> OccurrenceToken.APPLICATION + s),
                Arbitraries.strings()
                        .withCharRange('!', '~')
                        .ofMinLength(240)
                        .ofMaxLength(270)
                        .map(s -> OccurrenceToken.BROKER + s));
    }
}
