package dev.durability.bench.load;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import java.time.Instant;
import java.util.UUID;

/** Envelopes of the benchmark's events, the size of the demo's order.placed, with ids as the library makes them. */
public final class Envelopes {
    /** UUIDv7, as EventEnvelope.builder makes them: each row lands in its day's partition. */
    private static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    private Envelopes() {}

    public static UUID newId() {
        return IDS.generate();
    }

    /** An order line's envelope, as the demo's order.placed, of {@code eventType}. */
    public static String order(String id, String aggregate, String eventType, int n) {
        return "{\"id\":\"" + id + "\",\"event_type\":\"" + eventType + "\",\"source_service\":\"bench\","
                + "\"aggregate_id\":\"" + aggregate + "\",\"occurred_at\":\"" + Instant.now() + "\","
                + "\"schema_version\":1,\"correlation_id\":\"" + id + "\",\"causation_id\":null,"
                + "\"payload\":{\"order_id\":\"" + aggregate + "\",\"customer\":\"bench\",\"sku\":\"book-" + n
                + "\",\"quantity\":1}}";
    }
}
