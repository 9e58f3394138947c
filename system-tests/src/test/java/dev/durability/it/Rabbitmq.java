package dev.durability.it;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Stops and starts the local RabbitMQ application (the node stays up), as an operator's restart would. */
final class Rabbitmq {
    private Rabbitmq() {
    }

    static void stopApp() {
        rabbitmqctl("stop_app");
    }

    static void startApp() {
        rabbitmqctl("start_app");
        rabbitmqctl("await_startup");
    }

    private static void rabbitmqctl(String command) {
        try {
            Process process = new ProcessBuilder("rabbitmqctl", command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError("rabbitmqctl " + command + " failed: " + output);
            }
        } catch (IOException e) {
            throw new AssertionError("rabbitmqctl is needed to restart the local broker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
