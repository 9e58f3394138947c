package dev.durability.idempotency.control;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordingResponseTest {
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    private boolean committed;
    private Integer contentLength;

    private HttpServletResponse client() {
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public void write(int b) {
                committed = true;
                sent.write(b);
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {}
        };
        return (HttpServletResponse) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                    return switch (method.getName()) {
                        case "getOutputStream" -> out;
                        case "isCommitted" -> committed;
                        case "getCharacterEncoding" -> "UTF-8";
                        case "getStatus" -> 201;
                        case "getHeaderNames" -> List.of();
                        case "setContentLength" -> {
                            contentLength = (Integer) args[0];
                            yield null;
                        }
                        default -> null;
                    };
                });
    }

    @Test
    void anAnswerWrittenThroughAClosedWriterIsHeldThenReleasedWhole() throws Exception {
        RecordingResponse recording = new RecordingResponse(client(), 1024, true, bytes -> true);
        try (var writer = recording.getWriter()) {
            writer.print("gr\u00fc\u00dfe \ud83d\ude00");
        }
        recording.flushBuffer();

        assertThat(sent.size())
                .as("nothing reaches the client before the release")
                .isZero();
        recording.finish();
        var stored = recording.stored(h -> true, false);
        recording.release();

        String text = "gr\u00fc\u00dfe \ud83d\ude00";
        assertThat(stored.body()).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(contentLength).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void anAnswerOverTheCapStreamsFromTheFirstByteOverIt() throws Exception {
        RecordingResponse recording = new RecordingResponse(client(), 4, true, bytes -> true);
        recording.getOutputStream().write(new byte[] {1, 2, 3});
        assertThat(sent.size()).isZero();
        recording.getOutputStream().write(new byte[] {4, 5});

        assertThat(sent.toByteArray()).containsExactly(1, 2, 3, 4, 5);
        assertThat(recording.answerSent()).isTrue();
        assertThat(recording.stored(h -> true, false).bodyOmitted()).isTrue();
    }
}
