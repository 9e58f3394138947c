package dev.durability.idempotency.control;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A keyed request whose body the filter read whole (to fingerprint it) and hands to the handler again. A form
 * body's parameters are parsed from the kept bytes, since the container can no longer read them.
 */
public final class BufferedRequest extends HttpServletRequestWrapper {
    private final byte[] body;
    private final byte[] fingerprint;
    private Map<String, String[]> parameters;
    private List<Part> parts;
    private ServletResponse response;
    private RecordingResponse recording;

    /** The body was longer than the cap: the filter stopped reading at the cap's first byte past it. */
    public static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super(null, null, false, false);
        }
    }

    private BufferedRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
        this.fingerprint = CacheKey.sha256(body);
    }

    /**
     * Reads the request's body, never more than one byte past {@code maxBytes}: a declared length over the cap
     * is refused before any byte is read.
     */
    public static BufferedRequest read(HttpServletRequest request, int maxBytes) throws IOException, TooLarge {
        if (request.getContentLengthLong() > maxBytes) {
            throw new TooLarge();
        }
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(maxBytes + 1);
        }
        if (body.length > maxBytes) {
            throw new TooLarge();
        }
        return new BufferedRequest(request, body);
    }

    /** The SHA-256 of the body: a retry with the same key must send the same bytes. */
    public byte[] fingerprint() {
        return fingerprint.clone();
    }

    /** The response the handler writes to, so that an asynchronous handler writes through it too. */
    public void respondThrough(RecordingResponse response) {
        this.response = response;
        this.recording = response;
    }

    // The no-argument form would hand an asynchronous handler the original request (its body already read)
    // and response (not recorded). An asynchronous handler goes on beyond the filter's transaction, so its
    // answer is passed through as it is written, not held for that transaction's commit.
    @Override
    public AsyncContext startAsync() {
        if (response == null) {
            return super.startAsync();
        }
        passThrough();
        return getRequest().startAsync(this, response);
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        passThrough();
        return super.startAsync(request, response);
    }

    private void passThrough() {
        if (recording != null) {
            try {
                recording.passThrough();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public ServletInputStream getInputStream() {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                try {
                    listener.onDataAvailable();
                    listener.onAllDataRead();
                } catch (IOException e) {
                    listener.onError(e);
                }
            }
        };
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        return new BufferedReader(new InputStreamReader(getInputStream(), charset()));
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }

    /**
     * A {@code multipart/form-data} body's parts, parsed from the kept bytes (the container's parser would find
     * the body already read); any other body is the container's to judge.
     */
    @Override
    public Collection<Part> getParts() throws IOException, ServletException {
        List<Part> parsed = multipart();
        return parsed == null ? super.getParts() : parsed;
    }

    @Override
    public Part getPart(String name) throws IOException, ServletException {
        List<Part> parsed = multipart();
        if (parsed == null) {
            return super.getPart(name);
        }
        for (Part part : parsed) {
            if (name.equals(part.getName())) {
                return part;
            }
        }
        return null;
    }

    private List<Part> multipart() throws IOException {
        if (parts == null) {
            String boundary = BufferedPart.boundary(getContentType());
            if (boundary == null) {
                return null;
            }
            parts = List.copyOf(BufferedPart.parse(body, boundary));
        }
        return parts;
    }

    @Override
    public String getParameter(String name) {
        String[] values = parameters().get(name);
        return values == null || values.length == 0 ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        return Collections.unmodifiableMap(parameters());
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return Collections.enumeration(parameters().keySet());
    }

    @Override
    public String[] getParameterValues(String name) {
        String[] values = parameters().get(name);
        return values == null ? null : values.clone();
    }

    private Map<String, String[]> parameters() {
        if (parameters == null) {
            Map<String, List<String>> collected = new LinkedHashMap<>();
            parse(getQueryString(), StandardCharsets.UTF_8, collected);
            String type = getContentType();
            if (type != null
                    && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                Charset charset = charset();
                parse(new String(body, charset), charset, collected);
            } else if (BufferedPart.boundary(type) != null) {
                // Form fields (parts without a file name) are parameters too, as the container makes them.
                try {
                    for (Part part : multipart()) {
                        if (part.getSubmittedFileName() == null && part.getName() != null) {
                            collected
                                    .computeIfAbsent(part.getName(), n -> new java.util.ArrayList<>())
                                    .add(((BufferedPart) part).text());
                        }
                    }
                } catch (IOException e) {
                    // a malformed multipart body has no parameters; getParts() reports it
                }
            }
            Map<String, String[]> map = new LinkedHashMap<>();
            collected.forEach((name, values) -> map.put(name, values.toArray(String[]::new)));
            parameters = map;
        }
        return parameters;
    }

    private Charset charset() {
        String encoding = getCharacterEncoding();
        try {
            return encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    private static void parse(String encoded, Charset charset, Map<String, List<String>> into) {
        if (encoded == null || encoded.isEmpty()) {
            return;
        }
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), charset);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), charset);
                into.computeIfAbsent(name, n -> new java.util.ArrayList<>()).add(value);
            } catch (IllegalArgumentException e) {
                // a malformed escape: the parameter is skipped, as the container would
            }
        }
    }
}
