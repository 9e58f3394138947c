package dev.durability.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Runs the operator's command-line tools the fault tests need (rabbitmqctl, pg_ctlcluster). */
final class Commands {
    private Commands() {}

    /**
     * Runs {@code line} for at most two minutes and returns its output; an exit code outside
     * {@code accepted} fails the test with the output.
     */
    static String run(List<String> line, Set<Integer> accepted) {
        String what = String.join(" ", line.subList(0, Math.min(line.size(), 3)));
        try {
            File output = File.createTempFile(new File(line.get(0)).getName(), ".out");
            output.deleteOnExit();
            Process process = new ProcessBuilder(line)
                    .redirectErrorStream(true)
                    .redirectOutput(output)
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(what + " did not finish in 120 s");
            }
            String text = Files.readString(output.toPath());
            if (!accepted.contains(process.exitValue())) {
                throw new AssertionError(what + " exited " + process.exitValue() + ": " + text);
            }
            return text;
        } catch (IOException e) {
            throw new AssertionError(line.get(0) + " is needed by this test (run the tests as root, see README)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
