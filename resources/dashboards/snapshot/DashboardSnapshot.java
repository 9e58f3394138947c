import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * Draws the shipped dashboard (resources/dashboards/durability.json) from a Prometheus that holds real data: each
 * panel's own queries, with the dashboard's variables at "All", run through Prometheus' HTTP API over the scenario's
 * range, drawn with Java 2D in the dashboard's layout (titles, series, stat values, units, thresholds). No Grafana
 * is installable on the machine this was made on (README.md in this folder); this is not a Grafana screenshot.
 *
 * <p>Usage: {@code java -cp <parsson, jakarta.json-api> DashboardSnapshot.java <dashboard.json> <prometheus URL>
 * <scenario.properties> <out.png>}
 */
public class DashboardSnapshot {
    /** The Prometheus scrape interval (prometheus.yml), what Grafana's data source setting would say. */
    private static final int SCRAPE_SECONDS = 5;
    /** Grafana's $__rate_interval: at least four scrape intervals. */
    private static final String RATE_INTERVAL = (4 * SCRAPE_SECONDS) + "s";

    private static final int WIDTH = 1800;
    private static final int COLUMN = WIDTH / 24;
    private static final int ROW = 30;
    private static final int HEADER = 96;
    private static final int GAP = 4;

    private static final Color BACKGROUND = new Color(0x111217);
    private static final Color PANEL = new Color(0x181b1f);
    private static final Color BORDER = new Color(0x2c3235);
    private static final Color TEXT = new Color(0xd8d9da);
    private static final Color MUTED = new Color(0x8e8e8e);
    private static final Color GRID = new Color(0x262a2e);
    private static final Color EVENT = new Color(0xb877d9);
    private static final Map<String, Color> NAMED = Map.of(
            "green", new Color(0x73bf69), "red", new Color(0xf2495c), "orange", new Color(0xff9830),
            "yellow", new Color(0xfade2a), "blue", new Color(0x5794f2));
    private static final Color[] PALETTE = {
        new Color(0x73bf69), new Color(0xf2cc0c), new Color(0x8ab8ff), new Color(0xff780a),
        new Color(0xf2495c), new Color(0x5794f2), new Color(0xb877d9), new Color(0x705da0),
        new Color(0x37872d), new Color(0xfade2a)
    };
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
    private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    private final String prometheus;
    private final long from;
    private final long to;
    private final List<long[]> eventTimes = new ArrayList<>();
    private final List<String> eventNames = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<String> report = new ArrayList<>();
    /** The scenario's notes by panel title (SnapshotTraffic.java): what the scenario, not a fault, explains. */
    private final Map<String, String> notes = new TreeMap<>();

    private DashboardSnapshot(String prometheus, Properties scenario) {
        this.prometheus = prometheus;
        this.from = Long.parseLong(scenario.getProperty("from"));
        this.to = Long.parseLong(scenario.getProperty("to"));
        for (String name : scenario.stringPropertyNames()) {
            if (name.startsWith("note.")) {
                notes.put(name.substring("note.".length()), scenario.getProperty(name));
            }
        }
        for (String event : scenario.getProperty("events", "").split(";")) {
            if (!event.isBlank()) {
                int space = event.indexOf(' ');
                eventTimes.add(new long[] {Long.parseLong(event.substring(0, space))});
                eventNames.add(event.substring(space + 1));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        JsonObject dashboard = readJson(Files.readString(Path.of(args[0])));
        Properties scenario = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[2]))) {
            scenario.load(in);
        }
        DashboardSnapshot snapshot = new DashboardSnapshot(args[1], scenario);
        BufferedImage image = snapshot.draw(dashboard);
        Path out = Path.of(args[3]);
        Files.createDirectories(out.getParent());
        ImageIO.write(image, "png", out.toFile());
        snapshot.report.forEach(System.out::println);
        System.out.println("wrote " + out);
    }

    private BufferedImage draw(JsonObject dashboard) throws Exception {
        JsonArray panels = dashboard.getJsonArray("panels");
        int bottom = 0;
        for (JsonValue panel : panels) {
            JsonObject grid = panel.asJsonObject().getJsonObject("gridPos");
            bottom = Math.max(bottom, grid.getInt("y") + grid.getInt("h"));
        }
        int height = HEADER + bottom * ROW + 8;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(BACKGROUND);
        g.fillRect(0, 0, WIDTH, height);
        header(g, dashboard);
        for (JsonValue value : panels) {
            JsonObject panel = value.asJsonObject();
            JsonObject grid = panel.getJsonObject("gridPos");
            int x = grid.getInt("x") * COLUMN + GAP;
            int y = HEADER + grid.getInt("y") * ROW + GAP;
            int w = grid.getInt("w") * COLUMN - 2 * GAP;
            int h = grid.getInt("h") * ROW - 2 * GAP;
            switch (panel.getString("type")) {
                case "row" -> row(g, panel, x, y, w, h);
                case "stat" -> stat(g, panel, x, y, w, h);
                case "timeseries" -> timeseries(g, panel, x, y, w, h);
                case "table" -> alerts(g, panel, x, y, w, h);
                default -> frame(g, panel, x, y, w, h, "panel type " + panel.getString("type") + " not drawn");
            }
        }
        g.dispose();
        return image;
    }

    private void header(Graphics2D g, JsonObject dashboard) {
        g.setColor(TEXT);
        g.setFont(font(Font.BOLD, 20));
        g.drawString(dashboard.getString("title"), 12, 28);
        g.setFont(font(Font.PLAIN, 13));
        g.setColor(MUTED);
        g.drawString(
                "Service: All    Instance: All    "
                        + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC).format(Instant.ofEpochSecond(from))
                        + " to " + SECONDS.format(Instant.ofEpochSecond(to)) + " UTC    step " + SCRAPE_SECONDS
                        + " s, $__rate_interval " + RATE_INTERVAL,
                12,
                50);
        g.drawString(
                "Drawn by resources/dashboards/snapshot/DashboardSnapshot.java from the dashboard's own queries against"
                        + " Prometheus (real data of the scenario in SnapshotTraffic.java; not a Grafana screenshot:"
                        + " no Grafana is installable here).",
                12,
                70);
        int x = 12;
        g.setFont(font(Font.PLAIN, 13));
        for (int i = 0; i < eventNames.size(); i++) {
            String label = (i + 1) + " " + SECONDS.format(Instant.ofEpochSecond(eventTimes.get(i)[0])) + " "
                    + eventNames.get(i);
            g.setColor(EVENT);
            g.drawString(label, x, 90);
            x += g.getFontMetrics().stringWidth(label) + 28;
        }
    }

    private void row(Graphics2D g, JsonObject panel, int x, int y, int w, int h) {
        g.setColor(TEXT);
        g.setFont(font(Font.BOLD, 16));
        g.drawString(panel.getString("title"), x + 4, y + h - 6);
        g.setColor(BORDER);
        g.drawLine(x, y + h, x + w, y + h);
    }

    private void frame(Graphics2D g, JsonObject panel, int x, int y, int w, int h, String note) {
        g.setColor(PANEL);
        g.fillRoundRect(x, y, w, h, 6, 6);
        g.setColor(BORDER);
        g.drawRoundRect(x, y, w, h, 6, 6);
        g.setColor(TEXT);
        g.setFont(font(Font.BOLD, 13));
        String title = panel.getString("title");
        g.drawString(fit(g, title, w - 16), x + 8, y + 18);
        String scenarioNote = notes.get(title);
        if (scenarioNote != null) {
            int after = x + 16 + g.getFontMetrics().stringWidth(title);
            g.setColor(EVENT);
            g.setFont(font(Font.ITALIC, 11));
            String text = "(" + scenarioNote + ")";
            if (g.getFontMetrics().stringWidth(text) <= x + w - 8 - after) {
                g.drawString(text, after, y + 18);
            } else {
                drawWrapped(g, text, x + 8, y + 32, w - 16);
            }
        }
        if (note != null) {
            g.setColor(MUTED);
            g.setFont(font(Font.ITALIC, 12));
            drawWrapped(g, note, x + 8, y + h / 2, w - 16);
        }
    }

    // ---------------------------------------------------------------- stat

    private void stat(Graphics2D g, JsonObject panel, int x, int y, int w, int h) throws Exception {
        String unit = unit(panel);
        List<Series> series = new ArrayList<>();
        for (JsonValue target : targets(panel)) {
            series.addAll(range(target.asJsonObject()));
        }
        if (series.isEmpty()) {
            frame(g, panel, x, y, w, h, "No data: the query returned no series over the range.");
            report.add(panel.getString("title") + ": no data");
            return;
        }
        frame(g, panel, x, y, w, h, null);
        int slot = (h - 28) / series.size();
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            Double last = s.lastNotNull();
            String text = last == null ? "No data" : format(last, unit);
            Color color = last == null ? MUTED : thresholdColor(panel, last);
            int top = y + 26 + i * slot;
            g.setFont(font(Font.BOLD, Math.min(44, slot - 18)));
            FontMetrics m = g.getFontMetrics();
            g.setColor(color);
            g.drawString(text, x + (w - m.stringWidth(text)) / 2, top + (slot + m.getAscent()) / 2 - 8);
            g.setFont(font(Font.PLAIN, 12));
            g.setColor(MUTED);
            String legend = s.legend + "  (last value; max " + format(s.max(), unit) + ")";
            legend = fit(g, legend, w - 16);
            g.drawString(legend, x + (w - g.getFontMetrics().stringWidth(legend)) / 2, top + slot - 4);
            report.add(panel.getString("title") + ": " + s.legend + " = " + text + " (max " + format(s.max(), unit)
                    + ")");
        }
    }

    private static Color thresholdColor(JsonObject panel, double value) {
        JsonObject thresholds = panel.getJsonObject("fieldConfig").getJsonObject("defaults").getJsonObject("thresholds");
        Color color = NAMED.get("green");
        if (thresholds != null) {
            for (JsonValue step : thresholds.getJsonArray("steps")) {
                JsonObject s = step.asJsonObject();
                if (s.isNull("value") || value >= s.getJsonNumber("value").doubleValue()) {
                    color = NAMED.getOrDefault(s.getString("color"), color);
                }
            }
        }
        return color;
    }

    // ---------------------------------------------------------------- time series

    private void timeseries(Graphics2D g, JsonObject panel, int x, int y, int w, int h) throws Exception {
        String unit = unit(panel);
        List<Series> series = new ArrayList<>();
        for (JsonValue target : targets(panel)) {
            series.addAll(range(target.asJsonObject()));
        }
        if (series.isEmpty()) {
            frame(g, panel, x, y, w, h, "No data: none of the panel's queries returned a series over the range.");
            report.add(panel.getString("title") + ": no data");
            return;
        }
        frame(g, panel, x, y, w, h, null);
        g.setFont(font(Font.PLAIN, 11));
        FontMetrics small = g.getFontMetrics();
        int legendRows = Math.min((series.size() + 1) / 2, 3);
        int legendHeight = legendRows * 14 + 4;
        double max = 0;
        double min = 0;
        for (Series s : series) {
            max = Math.max(max, s.max());
            min = Math.min(min, s.min());
        }
        if (max == min) {
            max = min + 1;
        }
        // Durations of a minute or more step in whole minutes, as a clock reads them.
        double tick = unit.equals("s") && (max - min) / 4 >= 30
                ? niceStep((max - min) / 4 / 60) * 60
                : niceStep((max - min) / 4);
        max = Math.ceil(max / tick) * tick;
        int axisWidth = 0;
        for (double v = min; v <= max + tick / 2; v += tick) {
            axisWidth = Math.max(axisWidth, small.stringWidth(format(v, unit)));
        }
        int left = x + 10 + axisWidth;
        int right = x + w - 10;
        int top = y + 28;
        int bottomY = y + h - legendHeight - 18;
        // grid and y axis labels
        for (double v = min; v <= max + tick / 2; v += tick) {
            int py = yOf(v, min, max, top, bottomY);
            g.setColor(GRID);
            g.drawLine(left, py, right, py);
            g.setColor(MUTED);
            String label = format(v, unit);
            g.drawString(label, left - 4 - small.stringWidth(label), py + 4);
        }
        // time axis
        long span = to - from;
        long timeTick = span > 1200 ? 300 : span > 480 ? 120 : 60;
        for (long t = (from / timeTick + 1) * timeTick; t < to; t += timeTick) {
            int px = xOf(t, left, right);
            g.setColor(GRID);
            g.drawLine(px, top, px, bottomY);
            g.setColor(MUTED);
            String label = CLOCK.format(Instant.ofEpochSecond(t));
            g.drawString(label, px - small.stringWidth(label) / 2, bottomY + 14);
        }
        // the scenario's events
        BasicStroke dashed =
                new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4, 4}, 0);
        for (int i = 0; i < eventTimes.size(); i++) {
            int px = xOf(eventTimes.get(i)[0], left, right);
            g.setColor(EVENT);
            g.setStroke(dashed);
            g.drawLine(px, top, px, bottomY);
            g.setStroke(new BasicStroke(1));
            g.drawString(Integer.toString(i + 1), px + 2, top + 10);
        }
        // the series
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            g.setColor(PALETTE[i % PALETTE.length]);
            g.setStroke(new BasicStroke(1.6f));
            Path2D path = new Path2D.Double();
            boolean open = false;
            long previous = Long.MIN_VALUE;
            for (Map.Entry<Long, Double> point : s.points.entrySet()) {
                double px = xOf(point.getKey(), left, right);
                double py = yOf(point.getValue(), min, max, top, bottomY);
                // A gap longer than two steps (a server down, a series absent) is drawn as a gap.
                if (!open || point.getKey() - previous > 2L * SCRAPE_SECONDS) {
                    path.moveTo(px, py);
                    open = true;
                } else {
                    path.lineTo(px, py);
                }
                previous = point.getKey();
            }
            g.draw(path);
            if (s.points.size() == 1) {
                Map.Entry<Long, Double> only = s.points.firstEntry();
                g.fillOval(xOf(only.getKey(), left, right) - 2, yOf(only.getValue(), min, max, top, bottomY) - 2, 4, 4);
            }
            g.setStroke(new BasicStroke(1));
        }
        if (series.stream().allMatch(s -> s.max() == 0 && s.min() == 0)) {
            g.setColor(MUTED);
            g.setFont(font(Font.ITALIC, 12));
            String text = series.size() == 1 ? "the series is 0 over the whole range" : "all " + series.size()
                    + " series are 0 over the whole range";
            g.drawString(text, (left + right - g.getFontMetrics().stringWidth(text)) / 2, (top + bottomY) / 2);
            g.setFont(font(Font.PLAIN, 11));
        }
        // legend, two columns; what does not fit is counted
        int columnWidth = (w - 20) / 2;
        int slots = legendRows * 2;
        for (int i = 0; i < series.size() && i < slots; i++) {
            int lx = x + 10 + (i % 2) * columnWidth;
            int ly = bottomY + 30 + (i / 2) * 14;
            if (i == slots - 1 && series.size() > slots) {
                g.setColor(MUTED);
                g.drawString("+" + (series.size() - i) + " more series", lx, ly);
                break;
            }
            Series s = series.get(i);
            g.setColor(PALETTE[i % PALETTE.length]);
            g.fillRect(lx, ly - 8, 12, 3);
            g.setColor(TEXT);
            g.drawString(fit(g, s.legend + "  max " + format(s.max(), unit), columnWidth - 20), lx + 16, ly);
        }
        for (Series s : series) {
            report.add(panel.getString("title") + ": " + s.legend + " max " + format(s.max(), unit) + " over "
                    + s.points.size() + " points");
        }
    }

    private int xOf(long t, int left, int right) {
        return left + (int) Math.round((double) (t - from) / (to - from) * (right - left));
    }

    private static int yOf(double v, double min, double max, int top, int bottom) {
        return bottom - (int) Math.round((v - min) / (max - min) * (bottom - top));
    }

    private static double niceStep(double raw) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double factor : new double[] {1, 2, 2.5, 5, 10}) {
            if (raw <= factor * magnitude) {
                return factor * magnitude;
            }
        }
        return 10 * magnitude;
    }

    // ---------------------------------------------------------------- alerts table

    /**
     * The firing alerts: the live panel lists what fires at the moment it is looked at; a picture of a past range
     * lists every alert that fired inside it, with when it started and stopped firing.
     */
    private void alerts(Graphics2D g, JsonObject panel, int x, int y, int w, int h) throws Exception {
        List<Series> series = new ArrayList<>();
        for (JsonValue target : targets(panel)) {
            series.addAll(range(target.asJsonObject()));
        }
        frame(g, panel, x, y, w, h, null);
        g.setFont(font(Font.PLAIN, 12));
        if (series.isEmpty()) {
            g.setColor(MUTED);
            g.drawString("No Durability alert fired during the scenario (ALERTS over the range is empty).", x + 10,
                    y + 44);
            report.add("Firing alerts: none");
            return;
        }
        g.setColor(MUTED);
        g.drawString("Alerts that fired during the range (the live panel lists those firing now):", x + 10, y + 36);
        int line = y + 54;
        int columns = 2;
        int columnWidth = (w - 20) / columns;
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String text = s.labels.getOrDefault("alertname", "?") + "  " + describe(s.labels) + "  firing "
                    + SECONDS.format(Instant.ofEpochSecond(s.points.firstKey())) + " to "
                    + SECONDS.format(Instant.ofEpochSecond(s.points.lastKey()));
            int lx = x + 10 + (i % columns) * columnWidth;
            int ly = line + (i / columns) * 16;
            if (ly > y + h - 6) {
                g.setColor(MUTED);
                g.drawString("+" + (series.size() - i) + " more", lx, ly - 16 + 0);
                break;
            }
            g.setColor(NAMED.get("red"));
            g.fillOval(lx, ly - 9, 8, 8);
            g.setColor(TEXT);
            g.drawString(fit(g, text, columnWidth - 24), lx + 14, ly);
            report.add("Firing alerts: " + text);
        }
    }

    private static String describe(Map<String, String> labels) {
        StringBuilder text = new StringBuilder();
        for (String name : List.of("source_service", "instance", "queue")) {
            if (labels.containsKey(name)) {
                text.append(name).append('=').append(labels.get(name)).append(' ');
            }
        }
        return text.toString().trim();
    }

    // ---------------------------------------------------------------- Prometheus

    private static JsonArray targets(JsonObject panel) {
        JsonArray targets = panel.getJsonArray("targets");
        return targets == null ? JsonValue.EMPTY_JSON_ARRAY : targets;
    }

    /** One target's query over the range, with the variables as Grafana substitutes them for "All". */
    private List<Series> range(JsonObject target) throws Exception {
        String expr = target.getString("expr")
                .replace("$__rate_interval", RATE_INTERVAL)
                .replace("$service", ".*")
                .replace("$instance", ".*");
        String url = prometheus + "/api/v1/query_range?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)
                + "&start=" + from + "&end=" + to + "&step=" + SCRAPE_SECONDS;
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Prometheus answered " + response.statusCode() + " to " + expr + ": "
                    + response.body());
        }
        JsonArray result = readJson(response.body()).getJsonObject("data").getJsonArray("result");
        String legendFormat = target.getString("legendFormat", "");
        List<Series> series = new ArrayList<>();
        for (JsonValue item : result) {
            JsonObject r = item.asJsonObject();
            Map<String, String> labels = new TreeMap<>();
            r.getJsonObject("metric").forEach((k, v) -> labels.put(k, ((JsonString) v).getString()));
            TreeMap<Long, Double> points = new TreeMap<>();
            for (JsonValue pair : r.getJsonArray("values")) {
                JsonArray p = pair.asJsonArray();
                double value = Double.parseDouble(p.getString(1));
                if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                    points.put(p.getJsonNumber(0).longValue(), value);
                }
            }
            if (!points.isEmpty()) {
                series.add(new Series(legend(legendFormat, labels), labels, points));
            }
        }
        return series;
    }

    private static String legend(String format, Map<String, String> labels) {
        if (format.isBlank()) {
            return labels.toString();
        }
        Matcher m = LEGEND.matcher(format);
        StringBuilder text = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(text, Matcher.quoteReplacement(labels.getOrDefault(m.group(1), "")));
        }
        m.appendTail(text);
        return text.toString().trim();
    }

    private record Series(String legend, Map<String, String> labels, TreeMap<Long, Double> points) {
        Double lastNotNull() {
            return points.isEmpty() ? null : points.lastEntry().getValue();
        }

        double max() {
            return points.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        }

        double min() {
            return points.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        }
    }

    // ---------------------------------------------------------------- units and text

    private static String unit(JsonObject panel) {
        JsonObject defaults = panel.getJsonObject("fieldConfig") == null
                ? null
                : panel.getJsonObject("fieldConfig").getJsonObject("defaults");
        return defaults == null ? "short" : defaults.getString("unit", "short");
    }

    /** Grafana's formats for the units the dashboard uses: s (durations), ops (per second), short. */
    private static String format(double value, String unit) {
        return switch (unit) {
            case "s" -> duration(value);
            case "ops" -> number(value) + " ops/s";
            default -> number(value);
        };
    }

    private static String duration(double seconds) {
        double abs = Math.abs(seconds);
        if (abs == 0) {
            return "0 s";
        }
        if (abs < 1) {
            return number(seconds * 1000) + " ms";
        }
        if (abs < 60) {
            return number(seconds) + " s";
        }
        if (abs < 3600) {
            return number(seconds / 60) + " min";
        }
        return number(seconds / 3600) + " h";
    }

    private static String number(double value) {
        double abs = Math.abs(value);
        if (abs >= 1_000_000) {
            return trim(value / 1_000_000) + " Mil";
        }
        if (abs >= 1000) {
            return trim(value / 1000) + " K";
        }
        return trim(value);
    }

    private static String trim(double value) {
        double abs = Math.abs(value);
        String text = abs == Math.rint(abs) || abs >= 100
                ? String.format(Locale.ROOT, "%.0f", value)
                : abs >= 10 ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%.2f", value);
        return text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
    }

    private static Font font(int style, int size) {
        return new Font("DejaVu Sans", style, size);
    }

    private static String fit(Graphics2D g, String text, int width) {
        FontMetrics m = g.getFontMetrics();
        if (m.stringWidth(text) <= width) {
            return text;
        }
        String cut = text;
        while (!cut.isEmpty() && m.stringWidth(cut + "…") > width) {
            cut = cut.substring(0, cut.length() - 1);
        }
        return cut + "…";
    }

    private static void drawWrapped(Graphics2D g, String text, int x, int y, int width) {
        FontMetrics m = g.getFontMetrics();
        StringBuilder line = new StringBuilder();
        int ly = y;
        for (String word : text.split(" ")) {
            if (m.stringWidth(line + word) > width && line.length() > 0) {
                g.drawString(line.toString().trim(), x, ly);
                ly += m.getHeight();
                line.setLength(0);
            }
            line.append(word).append(' ');
        }
        g.drawString(line.toString().trim(), x, ly);
    }

    private static JsonObject readJson(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
