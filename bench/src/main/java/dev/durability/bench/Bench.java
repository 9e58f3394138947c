package dev.durability.bench;

import dev.durability.bench.experiment.ClaimExperiment;
import dev.durability.bench.experiment.DrainExperiment;
import dev.durability.bench.experiment.FilterExperiment;
import dev.durability.bench.experiment.InboxExperiment;
import dev.durability.bench.experiment.LagExperiment;
import dev.durability.bench.experiment.Settings;
import dev.durability.bench.experiment.StagingExperiment;
import dev.durability.bench.experiment.SustainedExperiment;
import dev.durability.bench.report.Report;
import dev.durability.bench.results.Results;
import dev.durability.bench.results.ResultsFile;
import dev.durability.bench.server.BenchServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the experiments named (all, in this order, when none is), writes each one's result into bench/results.json
 * as soon as it has it, then writes the report from that file: docs/performance.md, docs/performance-sustained.md
 * and their plots. {@code report} alone writes the report from the file as it is. Run from the repository's root,
 * as bench/run does.
 */
public final class Bench {
    /** The experiments, in the order a whole run takes them: the servers' first, then the database's alone. */
    static final List<String> EXPERIMENTS = List.of("drain", "lag", "inbox", "filter", "staging", "claim", "sustained");

    private Bench() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Exception e) {
            System.getLogger(Bench.class.getName()).log(System.Logger.Level.ERROR, "bench/run failed", e);
            // The clients' threads (RabbitMQ's, HTTP's) must not keep a failed run alive.
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        List<String> names = args.length == 0 ? EXPERIMENTS : Arrays.asList(args);
        for (String name : names) {
            if (!EXPERIMENTS.contains(name) && !name.equals("report")) {
                System.err.println("bench/run [report | EXPERIMENT...]: no experiment " + name + "; there are "
                        + String.join(", ", EXPERIMENTS));
                System.exit(2);
            }
        }
        Path repository = Path.of("").toAbsolutePath();
        ResultsFile file = new ResultsFile(repository.resolve("bench/results.json"));
        Results results = file.read();
        if (!names.equals(List.of("report"))) {
            BenchServers.useTestServerOf(repository);
            Path work = Files.createTempDirectory("bench");
            int batch = Settings.batch();
            try (BenchServers servers = new BenchServers(batch);
                    AutoCloseable recordings = () -> deleteRecursively(work)) {
                for (String name : names) {
                    if (name.equals("report")) {
                        continue;
                    }
                    System.out.println("bench: " + name);
                    Object result = switch (name) {
                        case "drain" -> new DrainExperiment(servers, Settings.rows(), batch, work).run();
                        case "lag" -> new LagExperiment(servers, Settings.integer("BENCH_LAG_SECONDS", 20), work).run();
                        case "inbox" ->
                            new InboxExperiment(
                                            servers,
                                            Settings.integer("BENCH_CONSUMED", 5_000),
                                            Settings.integer("BENCH_INBOX_ROUNDS", 3))
                                    .run();
                        case "filter" ->
                            new FilterExperiment(servers, Settings.integer("BENCH_HTTP_SECONDS", 20), 3, work).run();
                        case "staging" ->
                            new StagingExperiment(
                                            servers,
                                            Settings.integer("STAGING_SECONDS", 5),
                                            Settings.integer("STAGING_ROUNDS", 3))
                                    .run();
                        case "claim" -> new ClaimExperiment(servers, batch).run();
                        default -> {
                            // Alone on the machine: a server of its own, nothing else running.
                            servers.close();
                            yield new SustainedExperiment(
                                            Settings.integer("BENCH_SUSTAINED_SECONDS", 600),
                                            Settings.integer("BENCH_SUSTAINED_WINDOW", 60),
                                            batch)
                                    .run();
                        }
                    };
                    results = results.with(result);
                    file.write(results);
                }
            }
        }
        new Report(results).write(repository.resolve("docs"));
        System.out.println("bench: wrote docs/performance.md and docs/performance-sustained.md");
    }

    /** The run's work folder: its JFR recordings, hundreds of MiB. */
    private static void deleteRecursively(Path folder) throws java.io.IOException {
        try (var paths = Files.walk(folder)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
