package dev.durability.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;

/**
 * HTTP/1.1 over a plain socket (or a TLS one for an {@code https} address), for what a well-behaved client library refuses to send (control characters or
 * raw non-ASCII bytes in a header) or to do (stop reading a response halfway).
 */
final class RawHttp implements AutoCloseable {
    private final Socket socket;

    RawHttp(URI server) throws IOException {
        if (server.getScheme().equals("https")) {
            SSLSocket tls = (SSLSocket)
                    TestServerTls.context().getSocketFactory().createSocket(server.getHost(), server.getPort());
            tls.startHandshake();
            socket = tls;
        } else {
            socket = new Socket(server.getHost(), server.getPort());
        }
        socket.setSoTimeout(60_000);
    }

    /** Sends the request line and header lines exactly as given (ISO-8859-1 bytes), then the blank line. */
    void head(String requestLine, String... headers) throws IOException {
        StringBuilder head = new StringBuilder(requestLine).append("\r\n");
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        head.append("\r\n");
        out().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out().flush();
    }

    OutputStream out() throws IOException {
        return socket.getOutputStream();
    }

    InputStream in() throws IOException {
        return socket.getInputStream();
    }

    /** The response's status line and headers, read up to the blank line. */
    String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        InputStream in = in();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.size() + " bytes of response head");
            }
            head.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1
                    : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** The body of a response whose head (just read) declares its {@code Content-Length}. */
    String readBody(String head) throws IOException {
        int length = head.lines()
                .filter(line -> line.regionMatches(true, 0, "Content-Length:", 0, 15))
                .map(line -> Integer.parseInt(line.substring(15).strip()))
                .findFirst()
                .orElseThrow(() -> new IOException("the response declares no Content-Length:\n" + head));
        return new String(in().readNBytes(length), StandardCharsets.UTF_8);
    }

    static int status(String head) {
        return Integer.parseInt(head.substring(9, 12));
    }

    /** A whole response to a request without a body sent on a connection of its own. */
    static String exchange(URI server, String requestLine, String... headers) throws IOException {
        try (RawHttp http = new RawHttp(server)) {
            http.head(requestLine, headers);
            return new String(http.in().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
