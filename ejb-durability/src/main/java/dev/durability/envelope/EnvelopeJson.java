package dev.durability.envelope;

import jakarta.json.JsonObject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;

import java.nio.charset.StandardCharsets;

/**
 * The JSON form of envelopes and payloads, through JSON-B. One shared {@link Jsonb}: it is thread-safe
 * and costly to build.
 */
public final class EnvelopeJson {
    private static final Jsonb JSONB = JsonbBuilder.create();

    private EnvelopeJson() {
    }

    public static String write(EventEnvelope envelope) {
        return JSONB.toJson(envelope);
    }

    public static byte[] writeBytes(EventEnvelope envelope) {
        return write(envelope).getBytes(StandardCharsets.UTF_8);
    }

    /** Reads and validates an envelope; anything malformed is an {@link InvalidEnvelopeException}. */
    public static EventEnvelope read(String json) {
        try {
            EventEnvelope envelope = JSONB.fromJson(json, EventEnvelope.class);
            if (envelope == null) {
                throw new InvalidEnvelopeException("envelope is empty");
            }
            return envelope;
        } catch (JsonbException e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                if (cause.getCause() instanceof InvalidEnvelopeException invalid) {
                    throw invalid;
                }
                cause = cause.getCause();
            }
            throw new InvalidEnvelopeException("envelope is not valid JSON of SPEC §3: " + e.getMessage(), e);
        }
    }

    /** A payload object of the producer's own type, turned into the JSON object the envelope carries. */
    public static JsonObject toJsonObject(Object payload) {
        if (payload instanceof JsonObject json) {
            return json;
        }
        String json = JSONB.toJson(payload);
        try {
            return JSONB.fromJson(json, JsonObject.class);
        } catch (JsonbException | ClassCastException e) {
            throw new InvalidEnvelopeException("payload must serialize to a JSON object, was: " + json, e);
        }
    }
}
