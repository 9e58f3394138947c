package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An event no queue is bound for: counted, logged, stamped with the reason, never mistaken for a delivery. */
class UnroutableEventIT {
    private final URI server = Coordinates.mainServer();
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    @Test
    void unroutableEventIsCountedLoggedAndKeptApartFromDeliveries() throws Exception {
        String eventType = "nowhere.bound_" + Long.toHexString(System.nanoTime());
        // Orders of earlier tests become shipment.created events, unroutable too: let them pass first.
        Pipeline.awaitQuiet();
        double before = Http.metric(server, "durability_outbox_unroutable_total");
        double publishedBefore = Http.metric(server, "durability_outbox_published_total");
        List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, 1);
        outbox.seed(envelopes);

        await().atMost(Duration.ofSeconds(15))
                .until(() -> outbox.row(envelopes.get(0).id()).unroutableAt() != null);
        OutboxTable.Row row = outbox.row(envelopes.get(0).id());
        assertThat(row.publishedAt()).as("not a delivery").isNull();
        assertThat(row.lastError()).startsWith("unroutable: 312 NO_ROUTE").contains(eventType);
        // Counted and logged right after the stamp commits; never claimed again, never counted published.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(Http.metric(server, "durability_outbox_unroutable_total"))
                    .isEqualTo(before + 1);
            assertThat(Http.metric(server, "durability_outbox_unroutable_rows")).isGreaterThanOrEqualTo(1);
            assertThat(Files.readString(Path.of(Coordinates.mainServerDir(), "logs", "messages.log")))
                    .contains("routed to no queue")
                    .contains("routing key " + eventType);
        });
        Thread.sleep(3_000);
        assertThat(outbox.row(envelopes.get(0).id()).attempts()).isZero();
        assertThat(outbox.row(envelopes.get(0).id()).publishedAt()).isNull();
        assertThat(Http.metric(server, "durability_outbox_unroutable_total")).isEqualTo(before + 1);
        assertThat(Http.metric(server, "durability_outbox_published_total")).isEqualTo(publishedBefore);
    }
}
