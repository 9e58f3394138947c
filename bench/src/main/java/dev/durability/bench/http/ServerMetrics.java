package dev.durability.bench.http;

import java.io.IOException;
import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Samples read from a server's {@code /metrics} text (Prometheus format). */
public final class ServerMetrics {

    private ServerMetrics() {}

    /** The server's {@code /metrics} text. */
    public static String read(URI server) throws IOException, InterruptedException {
        return new OrderClients(server).get(server.resolve("/metrics"));
    }

    /** The value of the first sample of {@code name} whose labels include {@code label} (e.g. {@code step="claim"}), or 0. */
    public static double sample(String metrics, String name, String label) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{(?=[^}]*" + Pattern.quote(label)
                        + ")[^}]*} ([0-9.eE+-]+|NaN)$")
                .matcher(metrics);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
    }
}
