package dev.durability.retention.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TablePruningTest {

    private static TablePruning pruned(String table, boolean stoppedAtCap) {
        return new TablePruning(
                table,
                TablePruning.Outcome.PRUNED,
                1_000,
                1,
                Duration.ofMillis(5),
                stoppedAtCap,
                stoppedAtCap ? 60 : 0);
    }

    @Test
    void aRunWithOneTableStoppedAtItsCapLeftABacklog() {
        assertThat(TablePruning.backlogLeft(List.of(pruned("event_outbox", false), pruned("event_inbox", true))))
                .isTrue();
    }

    @Test
    void aRunThatFinishedEveryTableLeftNone() {
        assertThat(TablePruning.backlogLeft(List.of(
                        pruned("event_outbox", false),
                        TablePruning.without("event_inbox", TablePruning.Outcome.PRUNED_ELSEWHERE, 3_600),
                        TablePruning.without("dead_letter_audit", TablePruning.Outcome.DISABLED, 0))))
                .as("a table another server prunes is that server's to catch up")
                .isFalse();
        assertThat(TablePruning.backlogLeft(List.of())).isFalse();
    }
}
