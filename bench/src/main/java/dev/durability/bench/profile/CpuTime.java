package dev.durability.bench.profile;

import dev.durability.bench.results.CpuShare;
import dev.durability.bench.tool.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/**
 * CPU time from /proc: of Liberty's servers, RabbitMQ and PostgreSQL, to see which of them saturates the cores; and
 * the whole machine's busy share.
 */
public final class CpuTime {
    /** Clock ticks per second of /proc's figures (USER_HZ), as getconf says. */
    private static final double TICKS_PER_SECOND = clockTicks();

    private final Collection<Long> libertyPids;
    private long liberty;
    private long rabbitmq;
    private long postgresql;
    private long startNanos;

    private CpuTime(Collection<Long> libertyPids) {
        this.libertyPids = libertyPids;
    }

    /** Starts counting the CPU time of these Liberty servers, RabbitMQ's and PostgreSQL's processes. */
    public static CpuTime start(Collection<Long> libertyPids) {
        CpuTime time = new CpuTime(libertyPids);
        time.liberty = ticks(libertyPids);
        time.rabbitmq = ticksOf("beam.smp");
        time.postgresql = ticksOf("postgres");
        time.startNanos = System.nanoTime();
        return time;
    }

    /** What each used since the start, as a share of all the machine's cores over that time. */
    public CpuShare share() {
        double available = (System.nanoTime() - startNanos)
                / 1e9
                * TICKS_PER_SECOND
                * Runtime.getRuntime().availableProcessors();
        return new CpuShare(
                100 * (ticks(libertyPids) - liberty) / available,
                100 * (ticksOf("beam.smp") - rabbitmq) / available,
                100 * (ticksOf("postgres") - postgresql) / available);
    }

    /** The machine's busy and total ticks so far, from /proc/stat. */
    public static long[] machineTicks() {
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            long total = 0;
            for (int i = 1; i <= 8; i++) {
                long value = Long.parseLong(cpu[i]);
                total += value;
                // idle (4) and iowait (5) are not busy
                if (i != 4 && i != 5) {
                    busy += value;
                }
            }
            return new long[] {busy, total};
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The machine's busy share in percent between two {@link #machineTicks()}. */
    public static double busyPercent(long[] before, long[] after) {
        return 100.0 * (after[0] - before[0]) / Math.max(1, after[1] - before[1]);
    }

    /**
     * The CPU ticks of every process whose command name is {@code name}, read from /proc/PID/comm as pgrep reads it:
     * anyone may read that, where the executable's path needs the processes' own user or ptrace.
     */
    private static long ticksOf(String name) {
        List<Long> pids = ProcessHandle.allProcesses()
                .map(ProcessHandle::pid)
                .filter(pid -> name.equals(command(pid)))
                .toList();
        if (pids.isEmpty()) {
            throw new IllegalStateException("no process named " + name + " runs here: its CPU time cannot be counted");
        }
        return ticks(pids);
    }

    private static String command(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm"))
                    .trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static long ticks(Collection<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // Fields after the command's closing parenthesis: utime and stime are the 14th and 15th of the line.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                sum += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            } catch (NoSuchFileException e) {
                // a process that ended meanwhile counts for nothing more
            } catch (IOException e) {
                // One that ends while its stat is read fails the read with ESRCH ("No such process"), not as missing.
                if (Files.exists(Path.of("/proc", Long.toString(pid)))) {
                    throw new IllegalStateException("cannot read the CPU time of process " + pid, e);
                }
            }
        }
        return sum;
    }

    private static double clockTicks() {
        try {
            return Double.parseDouble(Tool.run(List.of("getconf", "CLK_TCK")).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("getconf CLK_TCK failed: /proc's CPU times cannot be read", e);
        }
    }
}
