package dev.durability.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/** Stops and starts the local RabbitMQ application (the node stays up), as an operator's restart would. */
final class Rabbitmq {
    private Rabbitmq() {
    }

    static void stopApp() {
        rabbitmqctl("stop_app");
    }

    /** Starts the application and waits until it serves; harmless when it is already running. */
    static void startApp() {
        rabbitmqctl("start_app");
        rabbitmqctl("await_startup");
    }

    private static void rabbitmqctl(String command) {
        try {
            File output = File.createTempFile("rabbitmqctl-" + command, ".out");
            output.deleteOnExit();
            Process process = new ProcessBuilder("rabbitmqctl", command)
                    .redirectErrorStream(true).redirectOutput(output).start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("rabbitmqctl " + command + " did not finish in 120 s");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("rabbitmqctl " + command + " failed: " + Files.readString(output.toPath()));
            }
        } catch (IOException e) {
            throw new AssertionError("rabbitmqctl is needed to restart the local broker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
