package dev.durability.it;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler behind the idempotency filter that does, on request, what the orders API never does: answer with
 * a body of any size, fail, take longer than a claim, set cookies. It counts its runs per Idempotency-Key, so
 * a test can tell a replay from a second run. Deployed by {@link IdempotencyFilterIT} only.
 */
@WebServlet(urlPatterns = {"/secured/*", "/open/*", "/runs"})
public class IdempotencyProbe extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AtomicInteger count = runs.get(request.getParameter("key"));
        response.setContentType("text/plain");
        response.getWriter().print(count == null ? 0 : count.get());
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        request.getInputStream().readAllBytes();
        String key = request.getHeader("Idempotency-Key");
        int run = runs.computeIfAbsent(key == null ? "" : key, k -> new AtomicInteger())
                .incrementAndGet();
        String action = request.getPathInfo() == null ? "" : request.getPathInfo();
        switch (action.substring(action.lastIndexOf('/') + 1)) {
            case "large" -> large(response, Long.parseLong(request.getParameter("bytes")));
            case "fail-first" -> {
                if (run == 1) {
                    response.sendError(500);
                } else {
                    text(response, 201, "run " + run);
                }
            }
            case "slow-first" -> {
                if (run == 1) {
                    sleep(Long.parseLong(request.getParameter("ms")));
                }
                text(response, 201, "run " + run);
            }
            default -> {
                response.addHeader("Set-Cookie", "probe-session=run" + run + "; Path=/; HttpOnly");
                response.setHeader("Authentication-Info", "nextnonce=\"run" + run + "\"");
                response.setHeader("X-Probe", "run " + run);
                response.setHeader("Location", "/things/" + run);
                text(response, 201, "run " + run);
            }
        }
    }

    /** A deterministic body of the given length (byte i is i mod 251), written in 64 KiB pieces. */
    static void large(HttpServletResponse response, long bytes) throws IOException {
        response.setStatus(200);
        response.setContentType("application/octet-stream");
        response.setContentLengthLong(bytes);
        byte[] piece = new byte[64 * 1024];
        OutputStream out = response.getOutputStream();
        for (long written = 0; written < bytes; ) {
            int length = (int) Math.min(piece.length, bytes - written);
            for (int i = 0; i < length; i++) {
                piece[i] = (byte) ((written + i) % 251);
            }
            out.write(piece, 0, length);
            written += length;
        }
    }

    private static void text(HttpServletResponse response, int status, String text) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        response.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
