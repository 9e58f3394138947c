package dev.durability.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Stops and starts the local PostgreSQL cluster, as an operator's restart (or a crash) would. */
final class Postgresql {
    private Postgresql() {}

    static void stop() {
        pgCtlCluster("stop", "-m", "fast");
    }

    /** Starts the cluster and waits until it accepts connections; harmless when it runs. */
    static void start() {
        pgCtlCluster("start");
        for (int i = 0; i < 60; i++) {
            try (var c = OutboxTable.connect()) {
                return;
            } catch (java.sql.SQLException e) {
                sleep();
            }
        }
        throw new AssertionError("PostgreSQL did not accept connections 30 s after its start");
    }

    private static void pgCtlCluster(String... arguments) {
        try {
            File[] versions = new File("/etc/postgresql").listFiles();
            if (versions == null || versions.length == 0) {
                throw new AssertionError("no PostgreSQL cluster under /etc/postgresql to restart");
            }
            File output = File.createTempFile("pg_ctlcluster", ".out");
            output.deleteOnExit();
            List<String> line = new ArrayList<>(
                    List.of("pg_ctlcluster", "--skip-systemctl-redirect", versions[0].getName(), "main", arguments[0]));
            line.addAll(List.of(arguments).subList(1, arguments.length));
            Process process = new ProcessBuilder(line)
                    .redirectErrorStream(true)
                    .redirectOutput(output)
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("pg_ctlcluster " + arguments[0] + " did not finish in 120 s");
            }
            // start on a running cluster exits 2: that is the state we wanted.
            if (process.exitValue() != 0 && !(arguments[0].equals("start") && process.exitValue() == 2)) {
                throw new AssertionError(
                        "pg_ctlcluster " + arguments[0] + " failed: " + Files.readString(output.toPath()));
            }
        } catch (IOException e) {
            throw new AssertionError("pg_ctlcluster is needed to restart the local PostgreSQL", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
