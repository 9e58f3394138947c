package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Orders placed while RabbitMQ is down stay pending with their errors and backoff, and all arrive once it is back. */
class BrokerOutageIT {
    private final URI server = Coordinates.mainServer();
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());

    @Test
    void eventsStagedWhileTheBrokerIsDownAreDeliveredWhenItReturns() throws Exception {
        try (EventQueue queue = new EventQueue("order.placed")) {
            List<String> orders = new ArrayList<>();
            double failuresBefore = Http.metric(server, "durability_outbox_publish_failures_total");
            Rabbitmq.stopApp();
            try {
                for (int i = 0; i < 5; i++) {
                    var response = Http.postJson(
                            server, "/api/orders", "{\"customer\":\"outage\",\"sku\":\"s" + i + "\",\"quantity\":1}");
                    // The business transaction does not depend on the broker.
                    assertThat(response.statusCode()).isEqualTo(201);
                    orders.add(Http.json(response).getString("id"));
                }
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    for (String order : orders) {
                        OutboxTable.Row row = outbox.rowsOfAggregate(java.util.UUID.fromString(order))
                                .get(0);
                        assertThat(row.publishedAt()).isNull();
                        assertThat(row.attempts()).isPositive();
                        assertThat(row.lastError()).isNotBlank();
                        assertThat(row.claimedAt())
                                .as("claim released after the failure")
                                .isNull();
                        // The backoff of the attempt just failed: 1 s doubling per attempt, capped at 60 s,
                        // jittered to 50-100 %, measured from that attempt's stamp on the database clock.
                        double cap = Math.min(60.0, Math.pow(2, row.attempts() - 1));
                        double backoff = Duration.between(row.lastAttemptAt(), row.nextAttemptAt())
                                        .toMillis()
                                / 1000.0;
                        assertThat(backoff).isBetween(cap * 0.5 - 0.01, cap + 0.01);
                    }
                });
                // The gauges are refreshed at most every 2 s.
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    assertThat(Http.metric(server, "durability_outbox_publish_failures_total"))
                            .isGreaterThanOrEqualTo(failuresBefore + orders.size());
                    assertThat(Http.metric(server, "durability_outbox_rows_with_errors"))
                            .isGreaterThanOrEqualTo(orders.size());
                });
            } finally {
                Rabbitmq.startApp();
            }
            // Backoff is capped at 60 s; with jitter the last retry falls within about a minute.
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .untilAsserted(() -> {
                        for (String order : orders) {
                            assertThat(queue.messagesForAggregate(order))
                                    .as("message for order " + order)
                                    .isNotEmpty();
                        }
                    });
            for (String order : orders) {
                OutboxTable.Row row =
                        outbox.rowsOfAggregate(java.util.UUID.fromString(order)).get(0);
                assertThat(row.publishedAt()).isNotNull();
                assertThat(queue.messagesForAggregate(order)).hasSize(1);
            }
        }
    }
}
