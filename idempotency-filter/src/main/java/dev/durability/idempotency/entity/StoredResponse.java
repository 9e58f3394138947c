package dev.durability.idempotency.entity;

import java.util.List;
import java.util.Map;

/**
 * What a keyed request answered, as its record keeps it for replays: a 2xx status, the headers a replay may
 * carry, and the body, or no body when it was over the cap or could not be sent whole.
 *
 * @param body the exact bytes sent, or {@code null} when {@code bodyOmitted}
 */
public record StoredResponse(int status, List<Map.Entry<String, String>> headers, byte[] body, boolean bodyOmitted) {

    public StoredResponse {
        if (status < 200 || status > 299) {
            throw new IllegalArgumentException("only a 2xx answer is kept for replays, not " + status);
        }
        if ((body == null) != bodyOmitted) {
            throw new IllegalArgumentException("a stored response has its body, or is marked as having none");
        }
        headers = List.copyOf(headers);
    }
}
