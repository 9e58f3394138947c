package dev.durability.demo.orders.boundary;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads a request body as one JSON value without trusting it: at most a given number of bytes, strictly
 * UTF-8 (a malformed byte is refused, not replaced by U+FFFD), nothing after the value, no key twice in
 * one object, no deep nesting. Each way a body can be wrong is answered as the client's problem with a
 * detail that says which, never as a server error.
 */
final class RequestBody {
    // An order is two levels deep; the limit only keeps a hostile body from recursing far.
    private static final int MAX_DEPTH = 32;
    private static final int ECHOED_KEY_LENGTH = 40;
    private static final Logger LOG = Logger.getLogger(RequestBody.class.getName());

    private RequestBody() {}

    /**
     * @param contentType the request's media type; JSON has one encoding, so only UTF-8 is accepted
     * @param maxBytes    a larger body is refused with 413 before any of it is parsed
     * @param expected    what the endpoint reads, to complete a detail ("send ...")
     */
    static JsonValue read(MediaType contentType, InputStream body, int maxBytes, String expected)
            throws RequestRefused {
        String charset =
                contentType == null ? null : contentType.getParameters().get(MediaType.CHARSET_PARAMETER);
        if (charset != null && !charset.equalsIgnoreCase("utf-8")) {
            throw new RequestRefused(Problems.unsupportedMediaType(
                    "the body must be UTF-8: send the Content-Type application/json without a charset, or with "
                            + "charset=utf-8"));
        }
        String text = utf8(bytes(body, maxBytes, expected), expected);
        if (text.isBlank()) {
            throw new RequestRefused(Problems.malformedRequest("the body is empty; send " + expected));
        }
        try (JsonParser parser = Json.createParser(new StringReader(text))) {
            JsonValue value = value(parser, parser.next(), 1);
            if (parser.hasNext()) {
                throw new JsonParsingException("text after the value", parser.getLocation());
            }
            return value;
        } catch (Unreadable e) {
            throw new RequestRefused(Problems.malformedRequest(e.getMessage() + "; send " + expected));
        } catch (JsonParsingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getLineNumber() < 1
                    ? ""
                    : " at line " + at.getLineNumber() + ", column " + at.getColumnNumber();
            throw new RequestRefused(
                    Problems.malformedRequest("the body is not valid JSON" + where + "; send " + expected));
        } catch (RuntimeException e) {
            // Parsers refuse some valid JSON with other exceptions: Parsson, for one, a number of over 1100
            // characters with UnsupportedOperationException and an exponent beyond an int with NumberFormatException.
            LOG.log(Level.FINE, "refused a request body the JSON parser could not read", e);
            throw new RequestRefused(Problems.malformedRequest("the body holds JSON this server cannot read (a "
                    + "number too long or too large, for one); send " + expected));
        }
    }

    /** A JSON value's type as a detail names it: "was an array". */
    static String kind(JsonValue value) {
        return switch (value.getValueType()) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case TRUE, FALSE -> "a boolean";
            case NULL -> "null";
        };
    }

    // Built from the parser's events rather than by a JsonReader: a reader ignores text after the value and,
    // depending on the implementation, keeps either value of a repeated key.
    private static JsonValue value(JsonParser parser, JsonParser.Event event, int depth) throws Unreadable {
        if (depth > MAX_DEPTH) {
            throw new Unreadable("the body nests JSON arrays or objects more than " + MAX_DEPTH + " deep");
        }
        return switch (event) {
            case START_OBJECT -> object(parser, depth);
            case START_ARRAY -> array(parser, depth);
            default -> parser.getValue();
        };
    }

    private static JsonValue object(JsonParser parser, int depth) throws Unreadable {
        JsonObjectBuilder object = Json.createObjectBuilder();
        Set<String> keys = new HashSet<>();
        for (JsonParser.Event event = parser.next(); event != JsonParser.Event.END_OBJECT; event = parser.next()) {
            String key = parser.getString();
            if (!keys.add(key)) {
                throw new Unreadable("the body repeats the key "
                        + (key.length() <= ECHOED_KEY_LENGTH ? "\"" + key + "\"" : "of " + key.length() + " characters")
                        + " within one object");
            }
            object.add(key, value(parser, parser.next(), depth + 1));
        }
        return object.build();
    }

    private static JsonValue array(JsonParser parser, int depth) throws Unreadable {
        JsonArrayBuilder array = Json.createArrayBuilder();
        for (JsonParser.Event event = parser.next(); event != JsonParser.Event.END_ARRAY; event = parser.next()) {
            array.add(value(parser, event, depth + 1));
        }
        return array.build();
    }

    private static byte[] bytes(InputStream body, int maxBytes, String expected) throws RequestRefused {
        if (body == null) {
            return new byte[0];
        }
        byte[] bytes;
        try {
            bytes = body.readNBytes(maxBytes + 1);
        } catch (IOException e) {
            throw new RequestRefused(
                    Problems.malformedRequest("the body could not be read to its end; send " + expected));
        }
        if (bytes.length > maxBytes) {
            throw new RequestRefused(Problems.bodyTooLarge(
                    "the body is over " + maxBytes + " bytes, the most this " + "endpoint reads"));
        }
        return bytes;
    }

    private static String utf8(byte[] bytes, String expected) throws RequestRefused {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        // UTF-8 never needs more UTF-16 units than bytes.
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw new RequestRefused(Problems.malformedRequest(
                    "the body is not valid UTF-8 (at byte " + in.position() + "); send " + expected));
        }
        return out.flip().toString();
    }

    /** Well-formed JSON this API does not read; the message completes a detail. */
    private static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message, null, false, false);
        }
    }
}
