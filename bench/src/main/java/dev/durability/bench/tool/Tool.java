package dev.durability.bench.tool;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Runs a command-line tool to its end and returns what it printed (its errors with it); a tool that exits with
 * anything but 0 fails the experiment with its output, a tool that is missing names itself.
 */
public final class Tool {
    private Tool() {}

    public static String run(List<String> command) throws IOException {
        return run(command, Map.of(), null);
    }

    /** With these environment variables too, and {@code input} (if any) on its standard input. */
    public static String run(List<String> command, Map<String, String> environment, String input) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IOException(
                    command.get(0) + " is needed by the benchmark (bench/README.md says where it comes from)", e);
        }
        try (OutputStream stdin = process.getOutputStream()) {
            if (input != null) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (process.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + " exited " + process.exitValue() + ":\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", command) + " was interrupted", e);
        }
        return output;
    }
}
