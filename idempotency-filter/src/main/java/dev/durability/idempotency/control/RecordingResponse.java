package dev.durability.idempotency.control;

import dev.durability.idempotency.entity.StoredResponse;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * The handler's response, copied up to a cap for the record. Held, it is kept back from the client until
 * {@link #release()}: the filter commits the handler's effects and the record first, and a client never sees an
 * answer that did not commit (docs/decisions/0051-answer-commits-with-effects.md). A body that outgrows the cap,
 * or a response passed through from the start, goes to the client as it is written (a large body is streamed,
 * never held whole). Over the cap, or when a write to the client fails, the copy is dropped and only the status
 * and headers can be kept.
 */
public final class RecordingResponse extends HttpServletResponseWrapper {
    private final int maxBytes;
    private final LongPredicate budget;
    private ByteArrayOutputStream copy = new ByteArrayOutputStream();
    private boolean holding;
    private boolean incomplete;
    private ServletOutputStream stream;
    private PrintWriter writer;
    private Encoding encoding;

    /**
     * @param hold whether to keep the answer back until {@link #release()} (while it fits the cap), or to pass
     *             every byte on at once
     * @param budget takes memory for more bytes of the copy; when it refuses, the answer streams and its record
     *               keeps no body
     */
    public RecordingResponse(HttpServletResponse response, int maxBytes, boolean hold, LongPredicate budget) {
        super(response);
        this.maxBytes = maxBytes;
        this.budget = budget;
        this.holding = hold;
    }

    /**
     * From now on every byte goes to the client as it is written, what was held first: for a handler that
     * continues asynchronously, beyond the filter's transaction.
     */
    public void passThrough() throws IOException {
        if (holding) {
            spill();
        }
    }

    /** Whether the client has received the answer's status (the response left the filter's hands). */
    public boolean answerSent() {
        return super.isCommitted() && !holding;
    }

    /** Sends what was held, with its length: the outcome is recorded and committed. */
    public void release() throws IOException {
        if (holding) {
            holding = false;
            if (!super.isCommitted() && copy != null) {
                super.setContentLength(copy.size());
                super.getOutputStream().write(copy.toByteArray());
            }
        }
    }

    /** Forgets what was held, so that the filter can answer instead: the handler's answer did not commit. */
    public void discard() {
        holding = false;
        copy = null;
        if (!super.isCommitted()) {
            super.reset();
        }
    }

    private void spill() throws IOException {
        holding = false;
        if (copy != null && copy.size() > 0) {
            try {
                super.getOutputStream().write(copy.toByteArray());
            } catch (IOException | RuntimeException e) {
                incomplete = true;
                throw e;
            }
        }
    }

    // A declared length would let the container end the exchange with the handler's last byte, before the
    // outcome is recorded, and a client retrying at once would meet the claim (409) instead of the replay.
    // Without it the container ends the response after the filter returns: chunked, or measured when it fits
    // the container's buffer.
    @Override
    public void setContentLength(int length) {}

    @Override
    public void setContentLengthLong(long length) {}

    @Override
    public void setHeader(String name, String value) {
        if (!name.equalsIgnoreCase("Content-Length")) {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (!name.equalsIgnoreCase("Content-Length")) {
            super.addHeader(name, value);
        }
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (!name.equalsIgnoreCase("Content-Length")) {
            super.setIntHeader(name, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (!name.equalsIgnoreCase("Content-Length")) {
            super.addIntHeader(name, value);
        }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was already called on this response");
        }
        if (stream == null) {
            stream = new Tee(super.getOutputStream());
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            if (stream != null) {
                throw new IllegalStateException("getOutputStream() was already called on this response");
            }
            stream = new Tee(super.getOutputStream());
            encoding = new Encoding(stream, Charset.forName(getCharacterEncoding()));
            writer = new PrintWriter(encoding);
        }
        return writer;
    }

    @Override
    public void flushBuffer() throws IOException {
        // The encoder, not the PrintWriter: flushing a writer the handler closed would mark it failed.
        if (encoding != null) {
            encoding.flush();
        }
        if (!holding) {
            super.flushBuffer();
        }
    }

    @Override
    public void resetBuffer() {
        super.resetBuffer();
        restart();
    }

    @Override
    public void reset() {
        super.reset();
        restart();
        // As the container's own reset: the handler may choose the stream or the writer again.
        stream = null;
        writer = null;
        encoding = null;
    }

    /** Pushes out what the handler's writer still buffers; called once the handler returned. */
    public void finish() {
        // checkError flushes a writer the handler left open and reports a failed write; unlike flush(), it
        // does not count the handler's own close as one.
        if (writer != null && writer.checkError()) {
            incomplete = true;
        }
    }

    /**
     * The 2xx answer as a replay may serve it: the headers the policy keeps, and the body if it was kept whole.
     *
     * @param failed whether the handler failed after committing its answer: what was copied is only a part
     */
    public StoredResponse stored(Predicate<String> replayedHeader, boolean failed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        String contentType = getContentType();
        if (contentType != null && replayedHeader.test("Content-Type")) {
            headers.add(Map.entry("Content-Type", contentType));
        }
        for (String name : getHeaderNames()) {
            if (!name.equalsIgnoreCase("Content-Type") && replayedHeader.test(name)) {
                for (String value : getHeaders(name)) {
                    headers.add(Map.entry(name, value));
                }
            }
        }
        boolean whole = copy != null && !incomplete && !failed;
        return new StoredResponse(getStatus(), headers, whole ? copy.toByteArray() : null, !whole);
    }

    private void restart() {
        if (!isCommitted()) {
            copy = new ByteArrayOutputStream();
        }
    }

    private void copied(byte[] bytes, int offset, int length) {
        if (copy != null) {
            if (copy.size() + length > maxBytes || !budget.test(length)) {
                copy = null; // over the cap or the budget: only the status and headers will be kept
            } else {
                copy.write(bytes, offset, length);
            }
        }
    }

    /**
     * The handler's characters, encoded at once into the tee: nothing waits in a buffer of its own that a
     * reset could not discard. Only a high surrogate waits for its low half.
     */
    private static final class Encoding extends Writer {
        private final ServletOutputStream bytes;
        private final Charset charset;
        private char pendingHigh;

        Encoding(ServletOutputStream bytes, Charset charset) {
            this.bytes = bytes;
            this.charset = charset;
        }

        @Override
        public void write(char[] chars, int offset, int length) throws IOException {
            if (length == 0) {
                return;
            }
            StringBuilder text = new StringBuilder(length + 1);
            if (pendingHigh != 0) {
                text.append(pendingHigh);
                pendingHigh = 0;
            }
            text.append(chars, offset, length);
            char last = text.charAt(text.length() - 1);
            if (Character.isHighSurrogate(last)) {
                pendingHigh = last;
                text.setLength(text.length() - 1);
            }
            bytes.write(text.toString().getBytes(charset));
        }

        @Override
        public void flush() throws IOException {
            bytes.flush();
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }

    private final class Tee extends ServletOutputStream {
        private final ServletOutputStream client;

        Tee(ServletOutputStream client) {
            this.client = client;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (holding) {
                if (copy.size() + length <= maxBytes && budget.test(length)) {
                    copy.write(bytes, offset, length);
                    return;
                }
                spill(); // over the cap: the answer streams from here on, its record keeps no body
            }
            try {
                client.write(bytes, offset, length);
            } catch (IOException | RuntimeException e) {
                incomplete = true;
                throw e;
            }
            copied(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            if (holding) {
                return;
            }
            try {
                client.flush();
            } catch (IOException | RuntimeException e) {
                incomplete = true;
                throw e;
            }
        }

        // Flushes only: closing the container's stream would end the exchange before the outcome is
        // recorded (the container closes it once the filter returned).
        @Override
        public void close() throws IOException {
            flush();
        }

        @Override
        public boolean isReady() {
            return holding || client.isReady();
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            client.setWriteListener(listener);
        }
    }
}
