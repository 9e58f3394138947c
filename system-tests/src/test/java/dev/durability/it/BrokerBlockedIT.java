package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durability.envelope.EventEnvelope;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A broker resource alarm (here: memory) blocks publishers. Nothing staged meanwhile is claimed,
 * published, lost or stuck: the drain sees the alarm before it claims, so no row even counts an
 * attempt, the server stays ready, and when the alarm clears every event arrives.
 */
class BrokerBlockedIT {
    private final OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());
    private final URI server = Coordinates.mainServer();

    @Test
    void eventsStagedWhileTheBrokerBlocksPublishersArriveWhenTheAlarmClears() throws Exception {
        String eventType = "blocked.alarm_" + Long.toHexString(System.nanoTime());
        List<EventEnvelope> envelopes = OutboxTable.envelopes(eventType, 20);
        try (EventQueue queue = new EventQueue(eventType)) {
            String watermark = Rabbitmq.memoryHighWatermark();
            Rabbitmq.setMemoryHighWatermark("0");
            try {
                Rabbitmq.awaitMemoryAlarm(true);
                outbox.seed(envelopes);
                // Several ticks, and longer than a batch caught by the alarm would need to time out (10 s). The
                // server stays ready throughout: the outbox absorbs the alarm, and a probe that failed on it would
                // take every replica out of service at once.
                long end = System.nanoTime() + Duration.ofSeconds(12).toNanos();
                while (System.nanoTime() < end) {
                    HttpResponse<String> ready = Http.get(server, "/health/ready");
                    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
                    Thread.sleep(500);
                }
                assertThat(Http.get(server, "/health/ready").body())
                        .as("the probe reports the block it saw")
                        .contains("\"blocked\"");
                assertThat(queue.messages())
                        .as("nothing gets through a blocked broker")
                        .isEmpty();
                assertThat(outbox.count("event_type = ? AND published_at IS NOT NULL", eventType))
                        .isZero();
                assertThat(outbox.count("event_type = ? AND (attempts > 0 OR claimed_at IS NOT NULL)", eventType))
                        .as("no row claimed, no attempt counted during the alarm")
                        .isZero();
            } finally {
                Rabbitmq.setMemoryHighWatermark(watermark);
            }
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> outbox.count("event_type = ? AND published_at IS NULL", eventType) == 0);
            queue.awaitArrivalOf(envelopes, Duration.ofSeconds(15));
        }
    }
}
