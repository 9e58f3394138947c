package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Hostile values in every request header the deployment reads (Authorization, Content-Type, Idempotency-Key,
 * Accept), sent on a raw socket so that control characters and bytes that are not UTF-8 arrive as they are:
 * each is answered with a 4xx that places nothing, or, where the value is still a valid one (a key of printable
 * ASCII that looks like markup, an Accept the server may ignore), handled as any value; never a 5xx, never the
 * value echoed back as markup.
 */
class HostileHeadersIT {
    private static final String SCRIPT = "<script>alert(1)</script>";
    private static final List<String> HOSTILE = List.of(
            "' OR '1'='1'; DROP TABLE demo_orders; --",
            SCRIPT,
            "x".repeat(16_000),
            "a\u0001b\u007fc",
            // ISO-8859-1 characters travel as single bytes: 0xFF 0xFE 0xC3 is no UTF-8.
            "\u00ff\u00fe\u00c3",
            "%00%0d%0aSet-Cookie: x=y");

    /** Headers where some hostile-looking values are still valid values; the others must refuse them all. */
    private static final List<String> MAY_BE_PLAIN_VALUES = List.of("Accept", "Idempotency-Key");

    private final URI server = Coordinates.mainServer();
    /** The admin API answers on the HTTPS port only. */
    private final URI admin = Coordinates.mainServerHttps();

    @Test
    void hostileValuesInTheOrdersApisHeadersPlaceNothingAndNeverFailTheServer() throws Exception {
        for (String header : List.of("Authorization", "Content-Type", "Idempotency-Key", "Accept")) {
            for (String value : HOSTILE) {
                for (String hostile : header.equals("Authorization")
                        ? List.of(value, "Basic " + value, "Bearer " + value)
                        : List.of(value)) {
                    String customer = "hostile-" + UUID.randomUUID();
                    Map<String, String> headers = new LinkedHashMap<>();
                    headers.put("Authorization", Http.basic(Http.USER));
                    headers.put("Content-Type", "application/json");
                    headers.put(header, hostile);
                    String answer = post(
                            server,
                            "/api/orders",
                            headers,
                            "{\"customer\":\"" + customer + "\",\"sku\":\"book-1\",\"quantity\":1}");
                    int status = RawHttp.status(answer);
                    String what = header + ": " + abbreviated(hostile) + " -> " + abbreviated(answer);
                    assertThat(status).as(what).isLessThan(500);
                    assertThat(answer).as(what).doesNotContain(SCRIPT).doesNotContain("Set-Cookie: x=y");
                    long placed = orders(customer);
                    if (MAY_BE_PLAIN_VALUES.contains(header) && status == 201) {
                        // Accept only chooses the answer's form, and a key of printable ASCII (markup looks like
                        // that) is as good as any: the order is placed once, the value stays a value.
                        assertThat(placed).as(what).isEqualTo(1);
                    } else {
                        assertThat(status).as(what).isBetween(400, 499);
                        assertThat(placed).as(what).isZero();
                    }
                }
            }
        }
    }

    @Test
    void hostileValuesInTheReplayApisHeadersReplayNothingAndNeverFailTheServer() throws Exception {
        String token = "Bearer " + AdminTokens.admin("hostile-" + UUID.randomUUID());
        for (String header : List.of("Authorization", "Idempotency-Key", "Accept")) {
            for (String value : HOSTILE) {
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("Authorization", token);
                headers.put(header, header.equals("Authorization") ? "Bearer " + value : value);
                String answer = post(
                        admin,
                        "/admin/events/replay?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z&dry_run=true",
                        headers,
                        "");
                int status = RawHttp.status(answer);
                String what = header + ": " + abbreviated(value) + " -> " + abbreviated(answer);
                assertThat(status).as(what).isLessThan(500);
                assertThat(answer).as(what).doesNotContain(SCRIPT).doesNotContain("Set-Cookie: x=y");
                if (!MAY_BE_PLAIN_VALUES.contains(header)) {
                    assertThat(status).as(what).isBetween(400, 499);
                }
            }
        }
    }

    private static String post(URI server, String path, Map<String, String> headers, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>();
        lines.add("Host: " + server.getHost() + ":" + server.getPort());
        lines.add("Connection: close");
        lines.add("Content-Length: " + bytes.length);
        headers.forEach((name, value) -> lines.add(name + ": " + value));
        try (RawHttp http = new RawHttp(server)) {
            http.head("POST " + path + " HTTP/1.1", lines.toArray(String[]::new));
            http.out().write(bytes);
            http.out().flush();
            return new String(http.in().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static long orders(String customer) throws Exception {
        try (Connection c = OutboxTable.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM " + Coordinates.mainSchema() + ".demo_orders WHERE customer = ?")) {
            s.setString(1, customer);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String abbreviated(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
