package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {

    @Test
    void theQuotedAndTheBareFormCarryTheSameKey() throws Exception {
        assertThat(IdempotencyKey.parse(List.of("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")))
                .isEqualTo(IdempotencyKey.parse(List.of("8e03978e-40d5-43e8-bc93-6894a57f9324")));
    }

    @Test
    void aQuotedKeyMayHoldSpacesCommasAndEscapedQuotesAndBackslashes() throws Exception {
        assertThat(IdempotencyKey.parse(List.of("\"a b, \\\"c\\\" \\\\d\"")).value())
                .isEqualTo("a b, \"c\" \\d");
    }

    @Test
    void surroundingWhitespaceIsNotPartOfTheKey() throws Exception {
        assertThat(IdempotencyKey.parse(List.of("  abc ")).value()).isEqualTo("abc");
    }

    @Test
    void twoHundredFiftyFiveCharactersAreTheMost() throws Exception {
        assertThat(IdempotencyKey.parse(List.of("k".repeat(255))).value()).hasSize(255);
        assertThat(IdempotencyKey.parse(List.of("\"" + "\\\\".repeat(255) + "\""))
                        .value())
                .hasSize(255);
        assertThatThrownBy(() -> IdempotencyKey.parse(List.of("k".repeat(256))))
                .isInstanceOf(IdempotencyKey.Invalid.class)
                .hasMessageContaining("256 characters");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "   ",
                "\"\"",
                "\"open",
                "\"a\"b\"",
                "\"a\" b",
                "\"a\\nb\"",
                "\"a\\",
                "a\"b",
                "a,b",
                "a b",
                "a\tb",
                "\"a\tb\"",
                "a\u0000b",
                "a\u007fb",
                "caf\u00e9",
                "\"\u00fcber\""
            })
    void anythingElseIsRefusedWithAReason(String field) {
        assertThatThrownBy(() -> IdempotencyKey.parse(List.of(field)))
                .isInstanceOf(IdempotencyKey.Invalid.class)
                .hasMessageContaining("Idempotency-Key");
    }

    @Test
    void theHeaderSentTwiceIsRefused() {
        assertThatThrownBy(() -> IdempotencyKey.parse(List.of("a", "a")))
                .isInstanceOf(IdempotencyKey.Invalid.class)
                .hasMessageContaining("once");
    }
}
