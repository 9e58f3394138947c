package dev.durability.it;

import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.MultipartConfig;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler behind the idempotency filter that does, on request, what the orders API never does: answer with
 * a body of any size, fail, take longer than a claim, set cookies. It counts its runs per Idempotency-Key, so
 * a test can tell a replay from a second run. Deployed by {@link IdempotencyFilterIT} only.
 */
@WebServlet(
        urlPatterns = {"/secured/*", "/open/*", "/runs", "/release"},
        asyncSupported = true)
@MultipartConfig
public class IdempotencyProbe extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

    /** {@code GET /runs?key=K}: how often a handler ran for key K; {@code GET /release?key=K}: lets a held one end. */
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String key = request.getParameter("key");
        if (request.getServletPath().equals("/release")) {
            latch(key).countDown();
            response.setStatus(204);
            return;
        }
        AtomicInteger count = runs.get(key);
        response.setContentType("text/plain");
        response.getWriter().print(count == null ? 0 : count.get());
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        if (request.getPathInfo() != null && request.getPathInfo().endsWith("/multipart")) {
            multipart(request, response);
            return;
        }
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
            case "held-first" -> {
                if (run == 1) {
                    await(latch(key));
                }
                text(response, 201, "run " + run);
            }
            case "commit-then-fail" -> {
                response.setStatus(201);
                response.setContentType("text/plain");
                response.getOutputStream().write(("run " + run + " begins").getBytes(StandardCharsets.UTF_8));
                response.flushBuffer();
                throw new IllegalStateException("the probe fails after committing its answer");
            }
            case "async" -> {
                var async = request.startAsync();
                async.start(() -> {
                    try {
                        async.getRequest().getInputStream().readAllBytes();
                        HttpServletResponse asyncResponse = (HttpServletResponse) async.getResponse();
                        asyncResponse.setHeader("Location", "/things/async-" + run);
                        text(asyncResponse, 201, "async run " + run);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    } finally {
                        async.complete();
                    }
                });
            }
            case "writer" -> {
                response.setStatus(201);
                response.setContentType("text/plain;charset=UTF-8");
                try (var writer = response.getWriter()) {
                    writer.print("gr\u00fc\u00dfe \ud83d\ude00 run " + run);
                }
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

    /** Answers what the handler sees of a multipart form: each part's name, file name and content, and a field. */
    private void multipart(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        String key = request.getHeader("Idempotency-Key");
        int run = runs.computeIfAbsent(key == null ? "" : key, k -> new AtomicInteger())
                .incrementAndGet();
        StringBuilder seen = new StringBuilder("run " + run + "; note=" + request.getParameter("note"));
        for (var part : request.getParts()) {
            seen.append("; ")
                    .append(part.getName())
                    .append('[')
                    .append(part.getSubmittedFileName())
                    .append("]=")
                    .append(new String(part.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        text(response, 201, seen.toString());
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

    private CountDownLatch latch(String key) {
        return held.computeIfAbsent(key, k -> new CountDownLatch(1));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
