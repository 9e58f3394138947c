package dev.durability.it;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
        File[] versions = new File("/etc/postgresql").listFiles();
        if (versions == null || versions.length == 0) {
            throw new AssertionError("no PostgreSQL cluster under /etc/postgresql to restart");
        }
        List<String> line = new ArrayList<>(
                List.of("pg_ctlcluster", "--skip-systemctl-redirect", versions[0].getName(), "main", arguments[0]));
        line.addAll(List.of(arguments).subList(1, arguments.length));
        // start on a running cluster exits 2: that is the state we wanted.
        Commands.run(line, arguments[0].equals("start") ? Set.of(0, 2) : Set.of(0));
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
