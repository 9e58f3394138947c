package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two servers on one database drain one backlog together: every row published, none lost. Delivery is
 * at least once: a row may reach the broker twice only when a lease expired and another server
 * recovered it, and every such recovery is counted.
 */
class TwoServersDrainIT {
    private static final int ROWS = 20_000;

    @Test
    void twoServersDrainTwentyThousandRowsWithNoneLostAndEveryDuplicateExplained() throws Exception {
        OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());
        String eventType = "pair.drained_" + Long.toHexString(System.nanoTime());
        try (EventQueue queue = new EventQueue(eventType);
                LibertyServer second = LibertyServer.copyOfMain(
                        "durability-second", 9191, Map.of("DURABILITY_INSTANCE_NAME", "it-second"))) {
            second.start();
            second.awaitApplicationStarted();
            DoubleSupplier recoveries = Http.metricSince(
                    List.of(Coordinates.mainServer(), second.uri()), "durability_outbox_lease_recoveries_total");

            List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, ROWS);
            outbox.seed(envelopes);

            await().atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> outbox.count("event_type = ? AND published_at IS NULL", eventType) == 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.messages().size() >= ROWS);
            Thread.sleep(2_000); // a late duplicate would arrive now
            List<String> ids =
                    queue.messages().stream().map(EventQueue.Message::id).toList();
            Set<String> expected =
                    envelopes.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
            assertThat(Set.copyOf(ids)).as("none lost, nothing foreign").isEqualTo(expected);
            assertThat((double) ids.size() - ROWS)
                    .as("duplicates, each explained by a counted lease recovery")
                    .isLessThanOrEqualTo(recoveries.getAsDouble());

            Map<String, Integer> byInstance = outbox.publishedByInstance(eventType);
            assertThat(byInstance).containsOnlyKeys("it-main", "it-second");
            assertThat(byInstance.values())
                    .allSatisfy(count -> assertThat(count).isPositive());
        }
    }
}
