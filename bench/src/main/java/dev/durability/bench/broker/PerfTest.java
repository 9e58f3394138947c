package dev.durability.bench.broker;

import dev.durability.bench.tool.Tool;
import dev.durability.it.Coordinates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RabbitMQ PerfTest, the broker's confirmed-publish limit, in a JVM of its own: persistent messages of an envelope's
 * size to one durable queue, 100 confirms outstanding, one consumer with automatic acknowledgement, as the drain's
 * queue is emptied ({@link Broker#sink}). PerfTest's default consumer acks every message, which costs the broker more
 * and would flatter the drain. Its jars are fetched by bench/perftest/pom.xml (bench/run does it), apart from this
 * module, so the build never depends on them.
 */
public final class PerfTest {
    private static final Path JARS = Path.of("bench/perftest/target/deps");
    private static final Pattern SENDING = Pattern.compile("sending rate avg: ([0-9]+) msg/s");
    private static final String QUEUE = "bench.perftest";

    private PerfTest() {}

    /** Confirmed publishes per second over {@code seconds} of {@code bytes}-byte messages. */
    public static double confirmedPublishes(int bytes, int seconds) throws IOException {
        if (!Files.isDirectory(JARS)) {
            throw new IllegalStateException(JARS + " is missing: bench/run fetches PerfTest there");
        }
        String output;
        try {
            output = Tool.run(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    JARS + "/*",
                    "com.rabbitmq.perf.PerfTest",
                    "-h",
                    "amqp://" + Coordinates.brokerUser() + ":" + Coordinates.brokerPassword() + "@"
                            + Coordinates.brokerHost() + ":" + Coordinates.brokerPort(),
                    "-x",
                    "1",
                    "-y",
                    "1",
                    "-c",
                    "100",
                    "-s",
                    Integer.toString(bytes),
                    "-f",
                    "persistent",
                    "-u",
                    QUEUE,
                    "-ad",
                    "false",
                    "-a",
                    "-z",
                    Integer.toString(seconds)));
        } finally {
            Broker.delete(QUEUE);
        }
        Matcher rate = SENDING.matcher(output);
        if (!rate.find()) {
            throw new IllegalStateException("PerfTest printed no sending rate:\n" + output);
        }
        return Double.parseDouble(rate.group(1));
    }
}
