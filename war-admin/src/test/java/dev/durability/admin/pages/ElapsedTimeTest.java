package dev.durability.admin.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ElapsedTimeTest {

    @ParameterizedTest
    @CsvSource({
        "0, 0.0 s",
        "0.04, 0.0 s",
        "12.36, 12.3 s",
        "59.96, 59.9 s",
        "60, 1 min",
        "245, 4 min 5 s",
        "3599.9, 59 min 59 s",
        "3600, 1 h",
        "11520, 3 h 12 min",
        "86399, 23 h 59 min",
        "86400, 1 d",
        "1062342.2, 12 d 7 h",
        "31536000, 365 d"
    })
    void theTwoLargestUnitsTruncated(double seconds, String text) {
        assertThat(new ElapsedTime(seconds).text()).isEqualTo(text);
    }

    @ParameterizedTest
    @CsvSource({"1062342.24, 1062342.2 s", "0, 0.0 s"})
    void theExactFigureKeepsEverySecond(double seconds, String exact) {
        assertThat(new ElapsedTime(seconds).exact()).isEqualTo(exact);
    }

    @ParameterizedTest
    @ValueSource(doubles = {-0.1, Double.NaN})
    void aNegativeOrUndefinedAgeIsRefused(double seconds) {
        assertThatThrownBy(() -> new ElapsedTime(seconds)).isInstanceOf(IllegalArgumentException.class);
    }
}
