package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The MicroProfile Health probes of the shared server: ready while the database, the broker and the
 * schema are, and ready again once an outage ends; live through outages, not live while the drain hangs.
 */
class HealthIT {
    private final URI server = Coordinates.mainServer();

    /** A database that will not vacuum the outbox is told at start, and only then. */
    @Test
    void aDatabaseWithAutovacuumOffIsWarnedAboutAtStart() throws Exception {
        String autovacuum;
        try (Connection c = OutboxTable.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW autovacuum")) {
            rs.next();
            autovacuum = rs.getString(1);
        }
        StringBuilder log = new StringBuilder();
        try (Stream<Path> logs = Files.list(Path.of(Coordinates.mainServerDir(), "logs"))) {
            for (Path file : logs.filter(f -> f.getFileName().toString().startsWith("messages"))
                    .toList()) {
                log.append(Files.readString(file));
            }
        }
        if (autovacuum.equals("off")) {
            assertThat(log).contains("PostgreSQL runs with autovacuum off");
        } else {
            assertThat(log).doesNotContain("PostgreSQL runs with autovacuum off");
        }
    }

    @Test
    void aServerWithEverythingReachableIsReadyAndLive() {
        HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 200);
        HttpResponse<String> live = Http.get(server, "/health/live");

        assertThat(ready.statusCode()).isEqualTo(200);
        // Each check once, though the EAR has several web modules that see the library.
        assertThat(checks(ready))
                .containsOnly(
                        Map.entry("durability-database", "UP"),
                        Map.entry("durability-schema", "UP"),
                        Map.entry("durability-broker", "UP"));
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(checks(live))
                .containsOnly(Map.entry("durability-drain", "UP"), Map.entry("durability-consumers", "UP"));
        assertThat(Http.json(Http.get(server, "/health")).getJsonArray("checks"))
                .hasSize(5);
    }

    @Test
    void withoutTheBrokerTheServerIsNotReadyUntilItIsBack() throws Exception {
        Rabbitmq.stopApp();
        try {
            HttpResponse<String> ready = await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 503);

            assertThat(checks(ready))
                    .containsEntry("durability-broker", "DOWN")
                    .containsEntry("durability-database", "UP");
            assertLiveThroughout(Duration.ofSeconds(5));
        } finally {
            Rabbitmq.startApp();
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Http.get(server, "/health/ready").statusCode() == 200);
    }

    @Test
    void withoutTheDatabaseTheServerIsNotReadyUntilItIsBack() throws Exception {
        ServerLog log = ServerLog.ofMainServerFromNow();
        Postgresql.stop();
        try {
            HttpResponse<String> ready = await().atMost(Duration.ofSeconds(60))
                    .until(() -> Http.get(server, "/health/ready"), r -> r.statusCode() == 503);

            assertThat(checks(ready)).containsEntry("durability-database", "DOWN");
            // The probe is unauthenticated: a fixed reason, not the driver's message (host, port, user, auth).
            assertThat(check(ready, "durability-database").getJsonObject("data"))
                    .isEqualTo(Json.createObjectBuilder()
                            .add("reason", "the database did not answer; the server log has the cause")
                            .build());
            assertThat(ready.body())
                    .doesNotContain(Coordinates.dbHost())
                    .doesNotContain(Integer.toString(Coordinates.dbPort()))
                    .doesNotContainIgnoringCase("connection")
                    .doesNotContain("Exception");
            assertThat(log.lines())
                    .filteredOn(line -> line.contains("Health check durability-database is down"))
                    .isNotEmpty();
            assertLiveThroughout(Duration.ofSeconds(5));
        } finally {
            Postgresql.start();
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Http.get(server, "/health/ready").statusCode() == 200);
    }

    /**
     * An outage is no hang: a restart would not cure it, so liveness stays up while it lasts (the drain's ticks
     * and the consumers' rounds go on failing fast).
     */
    private void assertLiveThroughout(Duration period) throws InterruptedException {
        long end = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < end) {
            HttpResponse<String> live = Http.get(server, "/health/live");
            assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
            assertThat(checks(live))
                    .containsEntry("durability-drain", "UP")
                    .containsEntry("durability-consumers", "UP");
            Thread.sleep(1_000);
        }
    }

    /**
     * A drain whose tick never ends is hung, which only a restart cures: liveness goes down. Every wait of a tick
     * is bounded, so no outage hangs it; a debugger stops the thread inside a tick instead, on a server of its
     * own (its own schema, a short lease so the limit is the minimum of a minute plus a poll interval).
     */
    @Test
    void aHungDrainTakesLivenessDownAndItComesBackWhenTheDrainGoesOn() throws Exception {
        String schema = "durability_health_hang";
        OutboxTable.dropSchema(schema);
        try (LibertyServer hung = LibertyServer.copyOfMain(
                "durability-health-hang",
                9198,
                Map.of(
                        "DB_SCHEMA", schema,
                        "DURABILITY_INSTANCE_NAME", "it-health-hang",
                        "DURABILITY_OUTBOX_LEASE_SECONDS", "30",
                        "DURABILITY_OUTBOX_STATEMENT_TIMEOUT_MS", "1000",
                        "DURABILITY_OUTBOX_CONFIRM_TIMEOUT_MS", "2000",
                        "DURABILITY_OUTBOX_STAMP_TIMEOUT_MS", "2000",
                        "DURABILITY_BROKER_CONNECT_TIMEOUT_MS", "1000"))) {
            Files.writeString(
                    hung.directory().resolve("jvm.options"),
                    "\n-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:" + DEBUG_PORT + "\n",
                    StandardOpenOption.APPEND);
            hung.start();
            hung.awaitApplicationStarted();
            URI uri = hung.uri();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Http.get(uri, "/health/live"), r -> r.statusCode() == 200);

            VirtualMachine vm = attach(DEBUG_PORT);
            try {
                ThreadReference stopped = stopInsideATick(vm);
                HttpResponse<String> live = await().atMost(Duration.ofSeconds(150))
                        .pollInterval(Duration.ofSeconds(2))
                        .until(() -> Http.get(uri, "/health/live"), r -> r.statusCode() == 503);
                assertThat(checks(live)).containsEntry("durability-drain", "DOWN");
                assertThat(Http.get(uri, "/health/ready").statusCode())
                        .as("a hung drain is no outage: the server still serves")
                        .isEqualTo(200);

                stopped.resume();
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> Http.get(uri, "/health/live").statusCode() == 200);
            } finally {
                vm.dispose();
            }
        }
    }

    private static final int DEBUG_PORT = 9199;

    private static VirtualMachine attach(int port) throws Exception {
        AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach"))
                .findFirst()
                .orElseThrow();
        Map<String, Connector.Argument> arguments = socket.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(Integer.toString(port));
        return socket.attach(arguments);
    }

    /**
     * Stops the next drain tick's thread where the tick has begun (the overlap guard taken), and only that thread:
     * later ticks find the guard taken and return at once, so no tick ends.
     */
    private static ThreadReference stopInsideATick(VirtualMachine vm) throws Exception {
        ReferenceType timer = vm.classesByName("dev.durability.outbox.boundary.OutboxDrainTimer").stream()
                .findFirst()
                .orElseThrow();
        Method drain = timer.methodsByName("drain").get(0);
        BreakpointRequest breakpoint = vm.eventRequestManager().createBreakpointRequest(drain.location());
        breakpoint.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        breakpoint.enable();
        try {
            while (true) {
                EventSet events = vm.eventQueue().remove(30_000);
                if (events == null) {
                    throw new AssertionError("no drain tick began within 30 s");
                }
                for (Event event : events) {
                    if (event instanceof BreakpointEvent hit) {
                        return hit.thread();
                    }
                }
                events.resume();
            }
        } finally {
            vm.eventRequestManager().deleteEventRequest(breakpoint);
        }
    }

    /** Each check's status by name; a check listed twice fails the test (docs/decisions/0059-health-checks-listed-once.md). */
    private static Map<String, String> checks(HttpResponse<String> response) {
        return Http.json(response).getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .collect(Collectors.toMap(check -> check.getString("name"), check -> check.getString("status")));
    }

    private static JsonObject check(HttpResponse<String> response, String name) {
        return Http.json(response).getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .filter(check -> check.getString("name").equals(name))
                .findFirst()
                .orElseThrow();
    }
}
