package dev.durability.bench.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The machine an experiment ran on, and when: a figure is read against the cores and the database it met. */
public record Machine(String ranAt, int cores, long memoryMiB, String postgresql) {

    /** This machine, now, with the version of the PostgreSQL server it measured. */
    public static Machine now(String postgresql) {
        return new Machine(
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                Runtime.getRuntime().availableProcessors(),
                memoryKiB() / 1024,
                postgresql);
    }

    /** The machine's memory in KiB, from /proc/meminfo. */
    public static long memoryKiB() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(line -> line.startsWith("MemTotal:"))
                    .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
                    .findFirst()
                    .orElseThrow();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/meminfo", e);
        }
    }

    /** The day it ran, as the report dates each section. */
    public String day() {
        return ranAt.substring(0, 10);
    }
}
