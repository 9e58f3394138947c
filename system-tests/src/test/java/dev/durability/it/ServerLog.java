package dev.durability.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What the shared test server wrote to its messages.log since a point in a test: for tests of what a request leaves
 * in the log (one line, or an error with a stack trace and an FFDC incident). Liberty rolls the log at 20 MB, far
 * beyond what one test writes.
 */
final class ServerLog {
    private final Path file;
    private final long mark;

    private ServerLog(Path file, long mark) {
        this.file = file;
        this.mark = mark;
    }

    /** The shared server's log from now on. */
    static ServerLog ofMainServerFromNow() {
        return fromNow(Path.of(Coordinates.mainServerDir(), "logs", "messages.log"));
    }

    /** This messages.log from now on; all of it when it does not exist yet. */
    static ServerLog fromNow(Path file) {
        try {
            return new ServerLog(file, Files.exists(file) ? Files.size(file) : 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What was written since this log was taken, as one text. */
    String text() {
        return String.join("\n", lines());
    }

    /** The lines written since this log was taken. */
    List<String> lines() {
        try {
            if (!Files.exists(file)) {
                return List.of();
            }
            byte[] all = Files.readAllBytes(file);
            String since = new String(
                    Arrays.copyOfRange(all, (int) Math.min(mark, all.length), all.length), StandardCharsets.UTF_8);
            return since.isEmpty() ? List.of() : since.lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
