package dev.durability.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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

    /** 0 raises the memory alarm: the broker blocks every publishing connection until it is raised again. */
    static void setMemoryHighWatermark(String fraction) {
        rabbitmqctl("set_vm_memory_high_watermark", fraction);
    }

    /**
     * Waits until the broker's memory alarm is {@code raised} or cleared. The command that moves the watermark returns
     * before the alarm takes effect: a publish in between is still routed, and its confirm may then wait while the
     * broker pages the queue out under the alarm.
     */
    static void awaitMemoryAlarm(boolean raised) {
        await("memory alarm " + (raised ? "raised" : "cleared"))
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> rabbitmqctl("eval", "rabbit_alarm:get_alarms().").contains("memory") == raised);
    }

    /** The largest message body the broker takes now ({@code max_message_size}). */
    static long maxMessageSize() {
        String answer = rabbitmqctl("eval", "rabbit_misc:get_env(rabbit, max_message_size, 134217728).")
                .trim();
        return Long.parseLong(answer);
    }

    /** Sets {@code max_message_size} for channels opened from now on (open ones keep the limit they started with). */
    static void setMaxMessageSize(long bytes) {
        rabbitmqctl("eval", "application:set_env(rabbit, max_message_size, " + bytes + ").");
    }

    /**
     * Creates a virtual host of a test's own, if missing, open to the tests' user: its exchanges and queues are apart
     * from the shared server's, so a server there consumes its own events only.
     */
    static void addVirtualHost(String name) {
        if (!rabbitmqctl("list_vhosts", "name")
                .lines()
                .map(String::strip)
                .toList()
                .contains(name)) {
            rabbitmqctl("add_vhost", name);
        }
        rabbitmqctl("set_permissions", "-p", name, Coordinates.brokerUser(), ".*", ".*", ".*");
    }

    private static String rabbitmqctl(String... arguments) {
        List<String> line = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        line.addAll(List.of(arguments));
        return Commands.run(line, Set.of(0));
    }
}
