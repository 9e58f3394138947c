package dev.durability.envelope;

/** An envelope, or a part of one, that breaks the envelope rules (docs/envelope.md). The message says which field and why. */
public class InvalidEnvelopeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidEnvelopeException(String message) {
        super(message);
    }

    public InvalidEnvelopeException(String message, Throwable cause) {
        super(message, cause);
    }
}
