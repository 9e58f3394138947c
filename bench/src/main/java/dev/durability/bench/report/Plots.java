package dev.durability.bench.report;

import dev.durability.bench.results.DrainResult;
import dev.durability.bench.results.LagResult;
import dev.durability.bench.results.LagResult.LagLoad;
import dev.durability.bench.results.SustainedResult;
import dev.durability.bench.tool.Tool;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The report's plots, drawn by gnuplot (Debian: gnuplot-nox) from the results, into docs/images. */
final class Plots {
    private static final String TERMINAL = "set terminal pngcairo size 720,420 font \",10\"\n";

    private final Path images;

    Plots(Path images) {
        this.images = images;
    }

    /**
     * Lag against offered load, the API's loads and the SQL loads as lines of their own: they are different paths,
     * and one line through both would show lag falling as load rises.
     */
    void lag(LagResult lag) throws IOException {
        StringBuilder script = new StringBuilder(TERMINAL)
                .append("set output '")
                .append(images.resolve("bench-lag.png"))
                .append("'\n")
                .append("set title 'Publish lag, commit to consumer (")
                .append(lag.machine().day())
                .append(", ")
                .append(lag.machine().cores())
                .append(" cores)'\n")
                .append("set xlabel 'offered load, events/s'\nset ylabel 'lag, ms'\nset logscale x\n")
                .append("set xrange [70:3000]\nset yrange [0:*]\nset key top left\nset grid\n");
        data(
                script,
                "api",
                lag.loads().stream().filter(l -> l.path() == LagResult.Path.API).toList());
        data(
                script,
                "sql",
                lag.loads().stream().filter(l -> l.path() == LagResult.Path.SQL).toList());
        script.append("plot $api using 1:2 with linespoints lt 1 pt 7 title 'API p50',"
                + " '' using 1:3 with linespoints lt 1 pt 5 dt 2 title 'API p99',"
                + " $sql using 1:2 with linespoints lt 2 pt 7 title 'SQL p50',"
                + " '' using 1:3 with linespoints lt 2 pt 5 dt 2 title 'SQL p99'\n");
        gnuplot(script.toString());
    }

    private static void data(StringBuilder script, String name, List<LagLoad> loads) {
        script.append('$').append(name).append(" << EOD\n");
        for (LagLoad load : loads) {
            if (load.arrival() != null) {
                script.append(String.format(
                        Locale.ROOT,
                        "%d %.2f %.2f%n",
                        load.offered(),
                        load.arrival().p50(),
                        load.arrival().p99()));
            }
        }
        script.append("EOD\n");
    }

    /** The drains beside PerfTest's limit. */
    void drain(DrainResult drain) throws IOException {
        gnuplot(TERMINAL + "set output '" + images.resolve("bench-drain.png") + "'\n"
                + "set title 'Backlog drain of " + String.format(Locale.ROOT, "%,d", drain.rows())
                + " rows against RabbitMQ PerfTest (" + drain.machine().day() + ")'\n"
                + "set ylabel 'messages/s'\nset style fill solid 0.6\nset boxwidth 0.6\nset yrange [0:*]\nunset key\n"
                + "set grid ytics\nset xrange [-0.6:3.6]\n"
                + "set xtics ('PerfTest limit' 0, 'one server' 1, 'two servers' 2, 'three servers' 3)\n"
                + "$drain << EOD\n"
                + String.format(
                        Locale.ROOT,
                        "0 %.0f%n1 %.0f%n2 %.0f%n3 %.0f%n",
                        drain.perfTestRate(),
                        drain.oneServer().rowsPerSecond(),
                        drain.twoServers().rowsPerSecond(),
                        drain.threeServers().rowsPerSecond())
                + "EOD\nplot $drain using 1:2 with boxes\n");
    }

    /** The outbox's size, the claim time and the lag, window by window. */
    void sustained(SustainedResult sustained) throws IOException {
        StringBuilder script = new StringBuilder(TERMINAL)
                .append("set output '")
                .append(images.resolve("bench-sustained.png"))
                .append("'\n")
                .append(String.format(
                        Locale.ROOT,
                        "set title 'Sustained %,.0f events/s, outbox window %s (%s)'%n",
                        sustained.stagedPerSecond(),
                        sustained.outboxWindow(),
                        sustained.machine().day()))
                .append("set xlabel 's into the run'\nset ylabel 'outbox rows (thousands), MiB'\nset y2label 'ms'\n")
                .append("set y2tics\nset ytics nomirror\nset yrange [0:*]\nset y2range [0:*]\nset key top left\n")
                .append("set grid\n$windows << EOD\n");
        for (SustainedResult.Window w : sustained.windows()) {
            if (w.outboxRows() >= 0) {
                script.append(String.format(
                        Locale.ROOT,
                        "%d %.1f %.1f %.2f %.2f%n",
                        w.endSeconds(),
                        w.outboxRows() / 1000.0,
                        w.outboxMiB(),
                        w.lagP99(),
                        w.claimMs()));
            }
        }
        script.append("EOD\nplot $windows using 1:2 with linespoints title 'outbox rows (k)',"
                + " '' using 1:3 with linespoints title 'outbox MiB',"
                + " '' using 1:4 axes x1y2 with linespoints title 'lag p99 ms',"
                + " '' using 1:5 axes x1y2 with linespoints title 'claim ms'\n");
        gnuplot(script.toString());
    }

    private static void gnuplot(String script) throws IOException {
        String output = Tool.run(List.of("gnuplot"), java.util.Map.of(), script);
        if (!output.isBlank()) {
            System.err.println("gnuplot: " + output.strip());
        }
    }
}
