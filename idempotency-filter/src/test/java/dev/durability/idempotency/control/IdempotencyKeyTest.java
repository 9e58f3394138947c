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
    void surroundingSpacesAndTabsAreNotPartOfTheKey() throws Exception {
        assertThat(IdempotencyKey.parse(List.of(" \tabc ")).value()).isEqualTo("abc");
    }

    @Test
    void parametersAfterAQuotedKeyAreIgnored() throws Exception {
        assertThat(IdempotencyKey.parse(List.of("\"k-1\";a=1;b;c=\"x\\\"y\";d=?0;e=tok/en"))
                        .value())
                .isEqualTo("k-1");
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
                "\"\u00fcber\"",
                "\u000bk",
                "k\u001c",
                "\"k\";A=1",
                "\"k\" ;a=1",
                "\"k\";a=\"open",
                "\"k\";a=1,\"j\""
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
