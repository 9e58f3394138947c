package dev.durability.bench.profile;

import dev.durability.bench.tool.Tool;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** JFR recordings of a running JVM, through jcmd. */
public final class FlightRecorder {
    private final long pid;

    public FlightRecorder(long pid) {
        this.pid = pid;
    }

    /**
     * Starts recording {@code name} into {@code file} with the JDK's profile settings; with {@code everySocketCall},
     * every socket read and write is timed (the shipped settings time only those over 10 ms), which slows the server
     * down: a run profiled so is never a measured one.
     */
    public void start(String name, Path file, boolean everySocketCall) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                "jcmd", Long.toString(pid), "JFR.start", "name=" + name, "settings=profile", "filename=" + file));
        if (everySocketCall) {
            command.add("socket-threshold=0ms");
        }
        jcmd(command);
    }

    /** Starts a recording of {@code seconds} that writes {@code file} when it ends. */
    public void startFor(String name, Path file, int seconds) throws IOException {
        jcmd(List.of(
                "jcmd",
                Long.toString(pid),
                "JFR.start",
                "name=" + name,
                "settings=profile",
                "duration=" + seconds + "s",
                "filename=" + file));
    }

    public void stop(String name) throws IOException {
        jcmd(List.of("jcmd", Long.toString(pid), "JFR.stop", "name=" + name));
    }

    private static void jcmd(List<String> command) throws IOException {
        Tool.run(command);
    }
}
