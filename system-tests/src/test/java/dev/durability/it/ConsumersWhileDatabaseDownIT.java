package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import jakarta.json.Json;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stops while dead letters and events arrive: the consumers ack nothing they could not
 * record, lose nothing, loop on nothing hot, and once the database is back every dead letter is
 * audited once and every order shipped once.
 */
class ConsumersWhileDatabaseDownIT {
    private static final int DEAD_LETTERS = 20;
    private static final int ORDERS = 10;
    private static final String PARKED = "parked, tried again";
    private static final String PAUSED = "Consumer of orders.shipments could not finish a delivery";

    private final URI server = Coordinates.mainServer();
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());

    @Test
    void nothingIsAckedOrLostWhileTheDatabaseIsDownAndEverythingIsRecordedOnceWhenItIsBack() throws Exception {
        String queue = "db-down-it." + Long.toHexString(System.nanoTime());
        String eventType = "outage.dead_" + Long.toHexString(System.nanoTime());
        List<UUID> orders = new ArrayList<>();
        double parkedBefore = Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"parked\"");
        double pausesBefore = Http.metric(server, "durability_inbox_pauses_total", "queue=\"orders.shipments\"");
        // The unique token index and the inbox's key would absorb a second record of the same dead letter or order:
        // only these counters show whether anything was recorded twice.
        double duplicatesBefore = Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"duplicate\"");
        double dedupHitsBefore = Http.metric(server, "durability_inbox_dedup_hits_total", "queue=\"orders.shipments\"");
        long parkedLogged = occurrences(PARKED);
        long pausedLogged = occurrences(PAUSED);
        Postgresql.stop();
        try (Amqp amqp = new Amqp()) {
            for (int i = 0; i < DEAD_LETTERS; i++) {
                EventEnvelope envelope = EventEnvelope.builder(eventType, "stock")
                        .payload(Json.createObjectBuilder().add("n", i).build())
                        .build();
                amqp.publish(
                        "durability.dead-letters",
                        "dlq." + queue,
                        Amqp.persistent(xDeath(queue)).build(),
                        Amqp.bytes(envelope));
            }
            for (int i = 0; i < ORDERS; i++) {
                UUID orderId = UUID.randomUUID();
                orders.add(orderId);
                amqp.publishEvent(ShipmentsConsumerIT.orderPlaced(orderId));
            }
            // The outage lasts until the dead-letter consumer gave up recording and parked, and the inbox
            // consumer paused: both say so in the log (scrapes wait on the database meanwhile).
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> occurrences(PARKED) > parkedLogged && occurrences(PAUSED) > pausedLogged);
        } finally {
            Postgresql.start();
        }
        assertThat(Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"parked\""))
                .isGreaterThan(parkedBefore);
        assertThat(Http.metric(server, "durability_inbox_pauses_total", "queue=\"orders.shipments\""))
                .isGreaterThan(pausesBefore);
        await().atMost(Duration.ofSeconds(90))
                .until(() -> tables.count("dead_letter_audit", "event_type = ?", eventType) >= DEAD_LETTERS
                        && tables.count("demo_shipments", "order_id = ANY (?)", (Object) orders.toArray(new UUID[0]))
                                >= ORDERS);
        Thread.sleep(2_000); // a second record of any of them would show now
        assertThat(Http.metric(server, "durability_dlq_outcomes_total", "outcome=\"duplicate\""))
                .as("no dead letter delivered again after it was recorded")
                .isEqualTo(duplicatesBefore);
        assertThat(Http.metric(server, "durability_inbox_dedup_hits_total", "queue=\"orders.shipments\""))
                .as("no order delivered again after it was processed")
                .isEqualTo(dedupHitsBefore);
        assertThat(tables.count("dead_letter_audit", "event_type = ?", eventType))
                .isEqualTo(DEAD_LETTERS);
        assertThat(tables.count(
                        "dead_letter_audit",
                        "event_type = ? AND occurrence_token IS NOT NULL AND NOT quarantined",
                        eventType))
                .isEqualTo(DEAD_LETTERS);
        for (UUID order : orders) {
            assertThat(tables.shipmentsForOrder(order)).isEqualTo(1);
        }
    }

    private static long occurrences(String text) throws Exception {
        String log = Files.readString(Path.of(Coordinates.mainServerDir(), "logs", "messages.log"));
        return log.lines().filter(line -> line.contains(text)).count();
    }

    private static Map<String, Object> xDeath(String queue) {
        Map<String, Object> entry = new HashMap<>();
        entry.put("queue", queue);
        entry.put("reason", "expired");
        entry.put("count", 1L);
        entry.put("time", Date.from(Instant.now()));
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(entry));
        return headers;
    }
}
