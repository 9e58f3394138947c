package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What operators query is what the server exports: every query of the shipped dashboard is valid PromQL
 * (promtool), and every {@code durability_*} series the dashboard and the alert rules name is exported by the
 * shared server. A metric renamed in the code, or a typo in a panel, fails here instead of drawing an empty
 * panel or an alert that can never fire.
 */
class MonitoringQueriesIT {
    private static final Pattern SERIES = Pattern.compile("\\bdurability_[a-z_]+");
    private static final Path DASHBOARD = Path.of(System.getProperty("it.dashboard"));
    private static final Path ALERT_RULES = Path.of(System.getProperty("it.alert.rules"));

    @Test
    void everyDashboardQueryIsValidPromql() throws IOException {
        List<String> queries = dashboardQueries();
        assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(30);
        // promtool checks expressions only inside rule files: each query becomes a recording rule, with the
        // dashboard's variables as Grafana would substitute them.
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < queries.size(); i++) {
            String expression = queries.get(i)
                    .replace("$__rate_interval", "1m")
                    .replace("$service", ".*")
                    .replace("$instance", ".*");
            rules.append("      - record: dashboard:query_")
                    .append(i)
                    .append('\n')
                    .append("        expr: >-\n          ")
                    .append(expression)
                    .append('\n');
        }
        Path file = Files.createTempFile("dashboard-queries", ".yml");
        try {
            Files.writeString(file, rules);
            assertThat(Commands.run(List.of("promtool", "check", "rules", file.toString()), Set.of(0)))
                    .contains("SUCCESS: " + queries.size() + " rules found");
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void everySeriesTheDashboardAndTheAlertsNameIsExported() throws IOException {
        String exported = Http.get(Coordinates.mainServer(), "/metrics").body();
        Set<String> named = new TreeSet<>();
        dashboardQueries().forEach(query -> named.addAll(series(query)));
        int fromDashboard = named.size();
        alertExpressions().forEach(expression -> named.addAll(series(expression)));
        assertThat(fromDashboard).as("series the dashboard names").isGreaterThan(20);
        assertThat(named.size())
                .as("the alert rules name series the dashboard does not")
                .isGreaterThan(fromDashboard);
        assertThat(named)
                .allSatisfy(name -> assertThat(exported)
                        .as("%s is exported", name)
                        .containsPattern("(?m)^" + Pattern.quote(name) + "\\{"));
    }

    private static List<String> dashboardQueries() throws IOException {
        JsonObject dashboard;
        try (Reader file = Files.newBufferedReader(DASHBOARD);
                JsonReader reader = Json.createReader(file)) {
            dashboard = reader.readObject();
        }
        List<String> queries = new ArrayList<>();
        for (JsonValue panel : dashboard.getJsonArray("panels")) {
            for (JsonValue target : panel.asJsonObject().getJsonArray("targets") == null
                    ? List.<JsonValue>of()
                    : panel.asJsonObject().getJsonArray("targets")) {
                queries.add(target.asJsonObject().getString("expr"));
            }
        }
        return queries;
    }

    /** The rules' {@code expr} values, single-line or folded ({@code >-}) over the lines indented below. */
    private static List<String> alertExpressions() throws IOException {
        List<String> expressions = new ArrayList<>();
        List<String> lines = Files.readAllLines(ALERT_RULES);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int at = line.indexOf("expr:");
            if (at < 0) {
                continue;
            }
            String value = line.substring(at + "expr:".length()).trim();
            if (value.startsWith(">") || value.startsWith("|")) {
                StringBuilder folded = new StringBuilder();
                while (i + 1 < lines.size() && indent(lines.get(i + 1)) > at) {
                    folded.append(lines.get(++i).trim()).append(' ');
                }
                value = folded.toString();
            }
            expressions.add(value);
        }
        assertThat(expressions).as("the alert rules' expressions").hasSizeGreaterThan(15);
        return expressions;
    }

    private static int indent(String line) {
        return line.isBlank()
                ? Integer.MAX_VALUE
                : line.length() - line.stripLeading().length();
    }

    private static Set<String> series(String expression) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = SERIES.matcher(expression);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }
}
