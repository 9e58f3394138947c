package dev.durability.idempotency.control;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The value of an {@code Idempotency-Key} header: the IETF draft's structured-field string
 * ({@code "8e03..."}, with {@code \"} and {@code \\} escapes), or the bare form many clients send. Inside,
 * 1 to 255 printable ASCII characters. The bare form has no quotes, commas or spaces: a comma separates
 * the values of a header sent twice, so quote a key that needs one. Parameters after a quoted key
 * ({@code "k";a=1}) are allowed by the structured-field syntax and ignored.
 */
public record IdempotencyKey(String value) {
    public static final String HEADER = "Idempotency-Key";
    public static final int MAX_LENGTH = 255;

    // A structured-field item may carry parameters (RFC 8941 section 3.1.2); none is defined for this
    // header, so they are checked for form and ignored.
    private static final Pattern PARAMETERS = Pattern.compile(
            "(;[ ]*[a-z*][a-z0-9_.*-]*(=(\"([\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\"\\\\])*\"|[!#$%&'*+.^_`|~:/0-9A-Za-z-]+|\\?[01]))?)*");

    /** Why a header was refused, in words a client can act on. */
    public static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The key the request's {@code Idempotency-Key} field lines carry.
     *
     * @param lines every line of the header, as the container decoded them (one character per byte)
     */
    public static IdempotencyKey parse(List<String> lines) throws Invalid {
        if (lines.size() != 1) {
            throw new Invalid("send the Idempotency-Key header once; this request has " + lines.size());
        }
        String field = trimmed(lines.get(0));
        if (field.isEmpty()) {
            throw new Invalid("the Idempotency-Key header is empty; send 1 to " + MAX_LENGTH + " printable ASCII "
                    + "characters, best a random UUID");
        }
        String key = field.charAt(0) == '"' ? unquote(field) : bare(field);
        if (key.isEmpty()) {
            throw new Invalid("the Idempotency-Key is an empty string; send 1 to " + MAX_LENGTH + " characters");
        }
        if (key.length() > MAX_LENGTH) {
            throw new Invalid(
                    "the Idempotency-Key has " + key.length() + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        return new IdempotencyKey(key);
    }

    private static String unquote(String field) throws Invalid {
        StringBuilder key = new StringBuilder(field.length());
        for (int i = 1; i < field.length(); i++) {
            char c = field.charAt(i);
            checkPrintable(c, i);
            if (c == '\\') {
                if (i + 1 == field.length() || (field.charAt(i + 1) != '"' && field.charAt(i + 1) != '\\')) {
                    throw new Invalid("the quoted Idempotency-Key has a backslash at position " + i + " that escapes "
                            + "neither a quote nor a backslash");
                }
                key.append(field.charAt(++i));
            } else if (c == '"') {
                if (i + 1 != field.length()
                        && !PARAMETERS.matcher(field.substring(i + 1)).matches()) {
                    throw new Invalid("the Idempotency-Key has text after its closing quote (position " + i
                            + "); send one quoted string");
                }
                return key.toString();
            } else {
                key.append(c);
            }
        }
        throw new Invalid("the Idempotency-Key opens a quote it never closes");
    }

    /** Only the field's optional whitespace (space and tab): any other character at either end is refused. */
    private static String trimmed(String field) {
        int start = 0;
        int end = field.length();
        while (start < end && (field.charAt(start) == ' ' || field.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (field.charAt(end - 1) == ' ' || field.charAt(end - 1) == '\t')) {
            end--;
        }
        return field.substring(start, end);
    }

    private static String bare(String field) throws Invalid {
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            checkPrintable(c, i);
            if (c == '"' || c == ',' || c == ' ') {
                throw new Invalid("the unquoted Idempotency-Key holds " + (c == ' ' ? "a space" : "'" + c + "'")
                        + " at position " + i + "; send it as a quoted string (\"...\", with \\\" and \\\\ escapes)");
            }
        }
        return field;
    }

    private static void checkPrintable(char c, int position) throws Invalid {
        if (c < 0x20 || c == 0x7f) {
            throw new Invalid(
                    "the Idempotency-Key holds a control character at position " + position + "; only printable ASCII");
        }
        if (c > 0x7e) {
            throw new Invalid("the Idempotency-Key holds a non-ASCII character at position " + position
                    + "; only printable ASCII");
        }
    }
}
