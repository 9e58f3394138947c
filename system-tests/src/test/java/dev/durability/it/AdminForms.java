package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The admin pages' forms as a browser submits them, for tests that post them without a browser. */
final class AdminForms {
    private static final Pattern HIDDEN =
            Pattern.compile("<input type=\"hidden\" name=\"([^\"]+)\"[^>]*value=\"([^\"]*)\"");

    private AdminForms() {}

    /** The hidden fields of the page's form {@code id}, the view state among them. */
    static Map<String, String> hiddenFields(String page, String id) {
        Matcher form = Pattern.compile("<form id=\"" + id + "\"[^>]*>(.*?)</form>", Pattern.DOTALL)
                .matcher(page);
        assertThat(form.find()).as("form %s in %s", id, page).isTrue();
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher hidden = HIDDEN.matcher(form.group(1));
        while (hidden.find()) {
            fields.put(hidden.group(1), hidden.group(2));
        }
        assertThat(fields).as(page).containsKey("jakarta.faces.ViewState");
        return fields;
    }

    /** A URL-encoded form post of these fields to {@code path}. */
    static HttpRequest post(URI server, String path, Map<String, String> fields) {
        return post(server, path, encoded(fields));
    }

    /**
     * A form post of these fields and one more whose value is sent exactly as given, already form-encoded: what
     * a hostile client can put on the wire and an encoder never writes (invalid UTF-8 among it).
     */
    static HttpRequest post(URI server, String path, Map<String, String> fields, String field, String encodedValue) {
        return post(
                server,
                path,
                encoded(fields) + "&" + URLEncoder.encode(field, StandardCharsets.UTF_8) + "=" + encodedValue);
    }

    private static String encoded(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    private static HttpRequest post(URI server, String path, String body) {
        return HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
