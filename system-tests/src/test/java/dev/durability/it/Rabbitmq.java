package dev.durability.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Stops and starts the local RabbitMQ application (the node stays up), as an operator's restart would. */
final class Rabbitmq {
    private Rabbitmq() {}

    static void stopApp() {
        rabbitmqctl("stop_app");
    }

    /** Starts the application and waits until it serves; harmless when it is already running. */
    static void startApp() {
        rabbitmqctl("start_app");
        rabbitmqctl("await_startup");
    }

    /** The memory high watermark as a fraction of RAM, as the broker runs now. */
    static String memoryHighWatermark() {
        return rabbitmqctl("eval", "vm_memory_monitor:get_vm_memory_high_watermark().")
                .trim();
    }

    /** 0 raises the memory alarm at once: the broker blocks every publishing connection until it is raised again. */
    static void setMemoryHighWatermark(String fraction) {
        rabbitmqctl("set_vm_memory_high_watermark", fraction);
    }

    private static String rabbitmqctl(String... arguments) {
        String command = arguments[0];
        try {
            File output = File.createTempFile("rabbitmqctl-" + command, ".out");
            output.deleteOnExit();
            List<String> line = new ArrayList<>(List.of("rabbitmqctl", "-q"));
            line.addAll(List.of(arguments));
            Process process = new ProcessBuilder(line)
                    .redirectErrorStream(true)
                    .redirectOutput(output)
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("rabbitmqctl " + command + " did not finish in 120 s");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("rabbitmqctl " + command + " failed: " + Files.readString(output.toPath()));
            }
            return Files.readString(output.toPath());
        } catch (IOException e) {
            throw new AssertionError("rabbitmqctl is needed to restart the local broker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
