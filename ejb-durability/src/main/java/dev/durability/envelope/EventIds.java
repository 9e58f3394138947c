package dev.durability.envelope;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import java.util.UUID;

/** Time-ordered envelope ids: UUIDv7 (RFC 9562), monotonic within this JVM even inside one millisecond. */
public final class EventIds {
    private static final TimeBasedEpochGenerator GENERATOR = Generators.timeBasedEpochGenerator();

    private EventIds() {}

    public static UUID next() {
        return GENERATOR.generate();
    }
}
