package dev.durability.idempotency.control;

import jakarta.servlet.http.Part;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One part of a {@code multipart/form-data} body the filter read whole (RFC 7578): the container can no longer
 * parse the body, so the keyed request serves its parts from the kept bytes.
 */
final class BufferedPart implements Part {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};
    private static final Pattern BOUNDARY =
            Pattern.compile("(?i);\\s*boundary\\s*=\\s*(?:\"([^\"]{1,70})\"|([^;\\s]{1,70}))");

    private final Map<String, List<String>> headers;
    private final byte[] content;

    private BufferedPart(Map<String, List<String>> headers, byte[] content) {
        this.headers = headers;
        this.content = content;
    }

    /** The boundary a {@code multipart/form-data} content type names, or null when it is not one. */
    static String boundary(String contentType) {
        if (contentType == null || !contentType.strip().toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            return null;
        }
        Matcher boundary = BOUNDARY.matcher(contentType);
        return boundary.find() ? (boundary.group(1) != null ? boundary.group(1) : boundary.group(2)) : null;
    }

    /**
     * The body's parts, in order.
     *
     * @throws IOException the body is not a complete multipart body with this boundary
     */
    static List<Part> parse(byte[] body, String boundary) throws IOException {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        byte[] nextDelimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int at = indexOf(body, delimiter, 0);
        if (at < 0) {
            throw new IOException("the multipart body has no boundary line");
        }
        List<Part> parts = new ArrayList<>();
        int position = at + delimiter.length;
        while (true) {
            if (startsWith(body, position, new byte[] {'-', '-'})) {
                return parts; // the closing delimiter
            }
            // Transport padding, then the line break ending the delimiter line.
            while (position < body.length && (body[position] == ' ' || body[position] == '\t')) {
                position++;
            }
            if (!startsWith(body, position, CRLF)) {
                throw new IOException("a multipart boundary line does not end in CRLF");
            }
            position += CRLF.length;
            int headEnd = startsWith(body, position, CRLF) ? position : indexOf(body, HEAD_END, position);
            if (headEnd < 0) {
                throw new IOException("a multipart part's headers do not end");
            }
            Map<String, List<String>> headers =
                    headers(new String(body, position, headEnd - position, StandardCharsets.UTF_8));
            int start = headEnd + (headEnd == position ? CRLF.length : HEAD_END.length);
            int end = indexOf(body, nextDelimiter, start);
            if (end < 0) {
                throw new IOException("a multipart part does not end with the boundary");
            }
            byte[] content = new byte[end - start];
            System.arraycopy(body, start, content, 0, content.length);
            parts.add(new BufferedPart(headers, content));
            position = end + nextDelimiter.length;
        }
    }

    private static Map<String, List<String>> headers(String text) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line : text.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(
                                line.substring(0, colon).strip().toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                        .add(line.substring(colon + 1).strip());
            }
        }
        return headers;
    }

    private static int indexOf(byte[] body, byte[] pattern, int from) {
        for (int i = from; i <= body.length - pattern.length; i++) {
            if (startsWith(body, i, pattern)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] body, int at, byte[] pattern) {
        if (at < 0 || at + pattern.length > body.length) {
            return false;
        }
        for (int j = 0; j < pattern.length; j++) {
            if (body[at + j] != pattern[j]) {
                return false;
            }
        }
        return true;
    }

    /** A form field's value (a part without a file name), decoded as its charset or UTF-8. */
    String text() {
        return new String(content, StandardCharsets.UTF_8);
    }

    @Override
    public InputStream getInputStream() {
        return new ByteArrayInputStream(content);
    }

    @Override
    public String getContentType() {
        return getHeader("Content-Type");
    }

    @Override
    public String getName() {
        return dispositionParameter("name");
    }

    @Override
    public String getSubmittedFileName() {
        return dispositionParameter("filename");
    }

    @Override
    public long getSize() {
        return content.length;
    }

    @Override
    public void write(String fileName) throws IOException {
        Files.write(Path.of(fileName), content);
    }

    @Override
    public void delete() {
        // Held in memory only: nothing to delete.
    }

    @Override
    public String getHeader(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null ? null : values.get(0);
    }

    @Override
    public Collection<String> getHeaders(String name) {
        return List.copyOf(headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }

    @Override
    public Collection<String> getHeaderNames() {
        return List.copyOf(headers.keySet());
    }

    private String dispositionParameter(String parameter) {
        String disposition = getHeader("Content-Disposition");
        if (disposition == null) {
            return null;
        }
        Matcher value = Pattern.compile("(?i);\\s*" + parameter + "\\s*=\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^;\\s]+))")
                .matcher(disposition);
        if (!value.find()) {
            return null;
        }
        return value.group(1) != null ? value.group(1).replaceAll("\\\\(.)", "$1") : value.group(2);
    }
}
