package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One more Liberty server of the module's installation, configured like the shared test server (same
 * server.xml, EAR and driver) but with its own environment: for tests that need a second server, a
 * server to kill, or a server with bad configuration. The benchmark (bench/) starts its servers with it too, from
 * this module's test jar.
 */
public final class LibertyServer implements AutoCloseable {
    private static final Path LIBFAKETIME =
            Path.of(Coordinates.env("LIBFAKETIME", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"));

    /** What the shared server's server.env sets to run least-privileged (src/test/least-privilege). */
    private static final List<String> LEAST_PRIVILEGED = List.of(
            "DB_USER",
            "DB_PASSWORD",
            "DURABILITY_SCHEMA_MIGRATE",
            "DURABILITY_BROKER_USERNAME",
            "DURABILITY_BROKER_PASSWORD");

    private final String name;
    private final Path wlp;
    private final Path directory;
    private final int httpPort;
    /** Environment of the server's process itself (not server.env): what must be set before its JVM loads. */
    private final Map<String, String> processEnvironment = new LinkedHashMap<>();

    private LibertyServer(String name, Path wlp, int httpPort) {
        this.name = name;
        this.wlp = wlp;
        this.directory = wlp.resolve("usr/servers").resolve(name);
        this.httpPort = httpPort;
    }

    /** Creates (or recreates) server {@code name} from the shared server's files, with these environment overrides. */
    public static LibertyServer copyOfMain(String name, int httpPort, Map<String, String> env) throws IOException {
        Path main = Path.of(Coordinates.mainServerDir());
        Path wlp = main.getParent().getParent().getParent();
        LibertyServer server = new LibertyServer(name, wlp, httpPort);
        if (Files.exists(server.directory.resolve("server.xml"))) {
            server.close(); // left running by an aborted earlier run
        }
        deleteRecursively(server.directory);
        Files.createDirectories(server.directory);
        // The reference server.xml and the includes it pulls in (liberty-config).
        for (String file : List.of("server.xml", "durability-library.xml", "durability-admin.xml", "jvm.options")) {
            Files.copy(main.resolve(file), server.directory.resolve(file));
        }
        for (String folder : List.of("apps", "jdbc")) {
            copyRecursively(main.resolve(folder), server.directory.resolve(folder));
        }
        // The development settings (ear/src/dev/liberty): demo users, the development admin key, a self-signed
        // certificate for the HTTPS port.
        for (String file : List.of("demo-users.xml", "dev-server.xml")) {
            Path dropin = Path.of("configDropins", "overrides", file);
            Files.createDirectories(server.directory.resolve(dropin).getParent());
            Files.copy(main.resolve(dropin), server.directory.resolve(dropin));
        }
        copyRecursively(main.resolve("dev-keys"), server.directory.resolve("dev-keys"));
        Map<String, String> merged = new LinkedHashMap<>();
        for (String line : Files.readAllLines(main.resolve("server.env"))) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                merged.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        if (env.containsKey("DB_SCHEMA")) {
            // The shared server's least-privileged identities hold grants on its schema and its queues only: a
            // server on a schema of its own migrates it, as the database's and the broker's administrators.
            for (String identity : LEAST_PRIVILEGED) {
                merged.remove(identity);
            }
        }
        merged.put("HTTP_PORT", Integer.toString(httpPort));
        merged.put("HTTPS_PORT", Integer.toString(httpsPort(httpPort)));
        merged.putAll(env);
        if (env.containsKey("DB_SCHEMA") && !env.containsKey("DURABILITY_INBOX_ENABLED")) {
            // A server on a schema of its own must not consume the queues the main server consumes (the
            // demo's shipments, the dead letters): their effects would land in its schema, not the main one.
            merged.put("DURABILITY_INBOX_ENABLED", "false");
        }
        StringBuilder text = new StringBuilder();
        merged.forEach(
                (key, value) -> text.append(key).append('=').append(value).append('\n'));
        Files.writeString(server.directory.resolve("server.env"), text.toString());
        return server;
    }

    /**
     * Starts the server's JVM with a wall clock the test can step ({@link #stepClock}): read through libfaketime
     * (Debian package {@code faketime}) from a file in the server's directory, at the machine's time until stepped.
     */
    LibertyServer withSteppableClock() throws IOException {
        stepClock(Duration.ZERO);
        return launchedWith(Map.of(
                "LD_PRELOAD", LIBFAKETIME.toString(),
                "FAKETIME_TIMESTAMP_FILE", clockOffset().toString(),
                // Read again every second, so a step takes effect on a running server; the monotonic clock
                // (timeouts, sleeps) stays the machine's, as an NTP step leaves it.
                "FAKETIME_CACHE_DURATION", "1",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_FORCE_MONOTONIC_FIX", "0"));
    }

    /** Sets the wall clock of a server started {@link #withSteppableClock()} this far from the machine's (within a second). */
    void stepClock(Duration offset) throws IOException {
        // libfaketime's offset format: seconds with a sign and an "s".
        Files.writeString(clockOffset(), (offset.isNegative() ? "" : "+") + offset.toSeconds() + "s\n");
    }

    private Path clockOffset() {
        return directory.resolve("clock-offset");
    }

    /** Starts the server's process with these variables too (LD_PRELOAD and its kind, which server.env cannot set). */
    public LibertyServer launchedWith(Map<String, String> environment) {
        processEnvironment.putAll(environment);
        return this;
    }

    public Path directory() {
        return directory;
    }

    /** Whether the server's process runs (it may have been killed). */
    public boolean isRunning() {
        try {
            return Files.exists(pidFile())
                    && ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    public URI uri() {
        return URI.create("http://localhost:" + httpPort);
    }

    /** The server's HTTPS port, where its admin pages and API answer. */
    URI httpsUri() {
        return URI.create("https://localhost:" + httpsPort(httpPort));
    }

    /** An extra server's HTTPS port: as far from its HTTP port as the shared server's (9180, 9543). */
    private static int httpsPort(int httpPort) {
        return httpPort + 363;
    }

    /** Starts the server in the background and waits until it is up (its application may still have failed). */
    public void start() {
        if (processEnvironment.containsKey("FAKETIME_TIMESTAMP_FILE")) {
            assertThat(LIBFAKETIME)
                    .as(
                            "libfaketime (Debian package faketime, see the README's prerequisites) steps this server's clock")
                    .exists();
        }
        Path log = directory.resolve("logs/messages.log");
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run("start");
    }

    /** Waits for the application to start and fails fast with the log when it failed to. */
    public void awaitApplicationStarted() {
        await("application durability started on " + name)
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    String log = messagesLog();
                    if (log.contains("CWWKZ0002E") || log.contains("CWWKZ0004E")) {
                        throw new AssertionError("application failed to start on " + name + ":\n" + log);
                    }
                    return log.contains("CWWKZ0001I: Application durability started");
                });
    }

    /** What this server writes to its messages.log from now on. */
    ServerLog logFromNow() {
        return ServerLog.fromNow(directory.resolve("logs/messages.log"));
    }

    /**
     * Restarts the application, not the server: Liberty restarts an application when its configuration changes, here
     * a property of its own that nothing reads. Waits until it runs again and fails with the log when it does not.
     */
    void restartApplication() throws IOException {
        ServerLog log = logFromNow();
        Files.writeString(
                directory.resolve("configDropins/overrides/restart-application.xml"), """
                <server>
                  <enterpriseApplication id="durability">
                    <appProperties><property name="it.restarted-at" value="%d"/></appProperties>
                  </enterpriseApplication>
                </server>
                """.formatted(System.nanoTime()));
        await("application durability restarted on " + name)
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    String text = log.text();
                    if (text.contains("CWWKZ0002E") || text.contains("CWWKZ0004E") || text.contains("CWWKZ0020I")) {
                        throw new AssertionError("application failed to restart on " + name + ":\n" + text);
                    }
                    return text.contains("CWWKZ0003I: The application durability updated")
                            || text.contains("CWWKZ0001I: Application durability started");
                });
    }

    public String messagesLog() {
        return log("messages.log");
    }

    /** What the JVM itself printed (a fatal error, such as running out of memory, is only here). */
    String consoleLog() {
        return log("console.log");
    }

    private String log(String file) {
        Path log = directory.resolve("logs").resolve(file);
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path pidFile() {
        return wlp.resolve("usr/servers/.pid").resolve(name + ".pid");
    }

    /** The server's JVM, while it runs. */
    public long pid() throws IOException {
        return Long.parseLong(Files.readString(pidFile()).trim());
    }

    /** SIGSTOP: the JVM stops where it is, mid-statement or mid-publish, until thawed or killed. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + signal + " failed for server " + name);
        }
    }

    /** SIGKILL to the server's JVM: no shutdown hooks, no PreDestroy, nothing flushed. */
    void kill() throws IOException {
        long pid = pid();
        ProcessHandle process = ProcessHandle.of(pid).orElse(null);
        if (process == null) {
            Files.deleteIfExists(pidFile());
            return;
        }
        process.destroyForcibly();
        await("server process " + pid + " gone").atMost(Duration.ofSeconds(30)).until(() -> !process.isAlive());
        Files.deleteIfExists(pidFile());
    }

    public void stop() {
        run("stop");
    }

    /**
     * Stops the server a test is done with without Liberty's quiesce stage ({@code --force}): letting requests
     * finish is not what the test checks (the shared server's stop at the end of the build is), and the quiesce took
     * 2 to 4 s on each of some twenty servers. A server that does not stop (frozen, wedged) is killed: no test
     * leaves one running.
     */
    @Override
    public void close() throws IOException {
        try {
            run("stop", "--force");
        } catch (AssertionError e) {
            if (Files.exists(pidFile())) {
                kill();
            }
        }
    }

    private void run(String action, String... options) {
        try {
            List<String> command =
                    new ArrayList<>(List.of(wlp.resolve("bin/server").toString(), action, name));
            command.addAll(List.of(options));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve(action + ".out").toFile());
            if (action.equals("start")) {
                // An extra server lives for one test class: the JIT's top tier would compile for a steady state it
                // never reaches, on the cores its start and the test need (about 1.5 s of each start here).
                builder.environment().put("JVM_ARGS", "-XX:TieredStopAtLevel=1");
                builder.environment().putAll(processEnvironment);
            }
            Process process = builder.start();
            int timeout = action.equals("stop") ? 60 : 180;
            if (!process.waitFor(timeout, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("server " + action + " " + name + " did not finish in " + timeout + " s");
            }
            int exit = process.exitValue();
            // stop on a server that is not running exits 1: that is the state we wanted.
            if (exit != 0 && !(action.equals("stop") && exit == 1)) {
                throw new AssertionError("server " + action + " " + name + " exited " + exit + ":\n"
                        + Files.readString(directory.resolve(action + ".out")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void copyRecursively(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
