package dev.durability.inbox;

/**
 * Thrown by a handler for an event no retry can process (it breaks a rule of the consumer's domain):
 * the delivery is dead-lettered at once, with this message as the reason.
 */
public class PermanentFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PermanentFailure(String message) {
        super(message);
    }

    public PermanentFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
