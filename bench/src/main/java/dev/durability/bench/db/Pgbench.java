package dev.durability.bench.db;

import dev.durability.bench.tool.Tool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's own benchmark tool, running a custom script: the database's limits (one-row commits) and the
 * transactions whose cost lies in the database. Its threads are as many as the machine's cores, never more than its
 * clients.
 */
public final class Pgbench {
    private static final Pattern TPS = Pattern.compile("(?m)^tps = ([0-9.]+)");
    private static final Pattern LATENCY = Pattern.compile("(?m)^latency average = ([0-9.]+) ms");
    private static final Pattern TRANSACTIONS =
            Pattern.compile("(?m)^number of transactions actually processed: ([0-9]+)");
    /** pgbench -r: a statement's mean latency, its failures, its text. */
    private static final Pattern STATEMENT = Pattern.compile("(?m)^ +([0-9.]+) +[0-9]+ +(.+)$");

    private Pgbench() {}

    /** One run's figures, and each statement's own mean latency when asked for ({@code -r}). */
    public record Run(double tps, double latencyMs, long transactions, Map<String, Double> statementMs) {

        /** The mean latency of the first statement whose text matches {@code regex}, 0 if none does. */
        public double statement(String regex) {
            Pattern pattern = Pattern.compile(regex);
            return statementMs.entrySet().stream()
                    .filter(e -> pattern.matcher(e.getKey()).find())
                    .mapToDouble(Map.Entry::getValue)
                    .findFirst()
                    .orElse(0);
        }
    }

    /** A script file of pgbench's language, deleted when the JVM ends. */
    public static Path script(String name, String sql) throws IOException {
        Path script = Files.createTempFile("bench-" + name, ".sql");
        script.toFile().deleteOnExit();
        Files.writeString(script, sql, StandardCharsets.UTF_8);
        return script;
    }

    /** {@code clients} connections running the script for {@code seconds}. */
    public static Run timed(Path script, int clients, int seconds, boolean perStatement) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                "pgbench",
                "-n",
                "-c",
                Integer.toString(clients),
                "-j",
                Integer.toString(Math.min(clients, Runtime.getRuntime().availableProcessors())),
                "-T",
                Integer.toString(seconds),
                "-f",
                script.toString()));
        if (perStatement) {
            command.add("-r");
        }
        return parse(run(command));
    }

    /** One connection running the script {@code transactions} times. */
    public static Run counted(Path script, int transactions) throws IOException {
        return parse(run(List.of("pgbench", "-n", "-t", Integer.toString(transactions), "-f", script.toString())));
    }

    private static Run parse(String output) {
        Map<String, Double> statements = new LinkedHashMap<>();
        Matcher statement = STATEMENT.matcher(output);
        while (statement.find()) {
            statements.putIfAbsent(statement.group(2).trim(), Double.parseDouble(statement.group(1)));
        }
        return new Run(number(TPS, output), number(LATENCY, output), (long) number(TRANSACTIONS, output), statements);
    }

    private static double number(Pattern pattern, String output) {
        Matcher matcher = pattern.matcher(output);
        if (!matcher.find()) {
            throw new IllegalStateException("pgbench printed no " + pattern + ":\n" + output);
        }
        return Double.parseDouble(matcher.group(1));
    }

    private static String run(List<String> command) throws IOException {
        return Tool.run(command, Database.clientEnvironment(), null);
    }
}
