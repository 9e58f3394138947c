package dev.durability.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;

/**
 * Waits until the main server's pipeline is at rest: no pending outbox row and nothing waiting in the
 * shipments queue, for long enough that an order placed by an earlier test has become its shipment and
 * its {@code shipment.created} has been published. Tests that assert exact counter deltas start here.
 */
final class Pipeline {
    private static final Duration QUIET = Duration.ofMillis(2_500);

    private Pipeline() {}

    static void awaitQuiet() {
        OutboxTable outbox = new OutboxTable(Coordinates.mainSchema());
        Instant[] quietSince = {null};
        await("the main server's outbox and shipments queue at rest")
                // Beyond the 90 s lease: rows a killed server (the fault suite's) held wait that long for recovery.
                .atMost(Duration.ofSeconds(150))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    boolean quiet = outbox.count("published_at IS NULL AND unroutable_at IS NULL AND attempts = 0") == 0
                            && shipmentsWaiting() == 0;
                    if (!quiet) {
                        quietSince[0] = null;
                        return false;
                    }
                    if (quietSince[0] == null) {
                        quietSince[0] = Instant.now();
                    }
                    return Duration.between(quietSince[0], Instant.now()).compareTo(QUIET) >= 0;
                });
    }

    /** Messages ready in the demo consumer's queue. */
    static long shipmentsWaiting() throws Exception {
        try (Amqp amqp = new Amqp()) {
            return amqp.channel().queueDeclarePassive("orders.shipments").getMessageCount();
        }
    }
}
