package dev.durability.bench.profile;

import dev.durability.bench.results.FrameCount;
import dev.durability.bench.results.GcPauses;
import dev.durability.bench.results.RoundTrips;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/** A server's JFR recording, read once: its database round trips, its garbage collections, its CPU samples. */
public final class Recording {
    private static final String OWN = "dev.durability.";
    /** The statement that bounds a claim's or a stamp's statements counts as the caller it bounds. */
    private static final String BOUNDING = "dev.durability.outbox.control.OutboxClaims.bound";

    private final List<RecordedEvent> events;

    private Recording(List<RecordedEvent> events) {
        this.events = events;
    }

    public static Recording of(Path file) throws IOException {
        return new Recording(RecordingFile.readAllEvents(file));
    }

    /**
     * The server's database round trips, by the first frame of Durability's code on their stack: one per pattern (a
     * regular expression found in that frame's {@code Class.method}), in order, then all of them. A round trip is a
     * read of PostgreSQL's answer, timed with the request's write before it.
     */
    public List<RoundTrips> roundTrips(List<String> patterns) {
        List<Pattern> compiled = patterns.stream().map(Pattern::compile).toList();
        long[] reads = new long[patterns.size() + 1];
        double[] millis = new double[patterns.size() + 1];
        long allReads = 0;
        double allMillis = 0;
        for (RecordedEvent event : events) {
            String type = event.getEventType().getName();
            boolean read = type.equals("jdk.SocketRead");
            if (!read && !type.equals("jdk.SocketWrite")) {
                continue;
            }
            RecordedStackTrace stack = event.getStackTrace();
            if (stack == null || stack.getFrames().stream().noneMatch(f -> name(f).startsWith("org.postgresql."))) {
                continue;
            }
            String own = stack.getFrames().stream()
                    .map(Recording::name)
                    .filter(n -> n.startsWith(OWN) && !n.equals(BOUNDING))
                    .findFirst()
                    .orElse("");
            int kind = patterns.size();
            for (int i = 0; i < compiled.size(); i++) {
                if (compiled.get(i).matcher(own).find()) {
                    kind = i;
                    break;
                }
            }
            double ms = event.getDuration().toNanos() / 1e6;
            millis[kind] += ms;
            allMillis += ms;
            if (read) {
                reads[kind]++;
                allReads++;
            }
        }
        List<RoundTrips> trips = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            trips.add(new RoundTrips(reads[i], reads[i] == 0 ? 0 : millis[i] / reads[i]));
        }
        trips.add(new RoundTrips(allReads, allReads == 0 ? 0 : allMillis / allReads));
        return trips;
    }

    /** The garbage collections' pauses. */
    public GcPauses gcPauses() {
        int count = 0;
        double longest = 0;
        double total = 0;
        for (RecordedEvent event : events) {
            if (event.getEventType().getName().equals("jdk.GarbageCollection")) {
                double pause = event.getDuration("sumOfPauses").toNanos() / 1e6;
                count++;
                total += pause;
                longest = Math.max(longest, pause);
            }
        }
        return new GcPauses(count, longest, total);
    }

    /** The execution samples. */
    public long samples() {
        return executionSamples().size();
    }

    /** The samples' most frequent leaf frames. */
    public List<FrameCount> leafFrames(int top) {
        return mostFrequent(
                stack -> stack.getFrames().isEmpty()
                        ? null
                        : name(stack.getFrames().get(0)),
                top);
    }

    /** The most frequent first frames of Durability's own code in the samples. */
    public List<FrameCount> ownFrames(int top) {
        return mostFrequent(
                stack -> stack.getFrames().stream()
                        .map(Recording::name)
                        .filter(n -> n.startsWith(OWN))
                        .findFirst()
                        .orElse(null),
                top);
    }

    private List<FrameCount> mostFrequent(Function<RecordedStackTrace, String> frame, int top) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (RecordedEvent sample : executionSamples()) {
            if (sample.getStackTrace() != null) {
                String name = frame.apply(sample.getStackTrace());
                if (name != null) {
                    counts.merge(name, 1L, Long::sum);
                }
            }
        }
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .limit(top)
                .map(e -> new FrameCount(e.getKey(), e.getValue()))
                .toList();
    }

    private List<RecordedEvent> executionSamples() {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals("jdk.ExecutionSample"))
                .toList();
    }

    /** A frame as {@code package.Class.method}. */
    private static String name(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }
}
