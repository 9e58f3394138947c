package dev.durability.admin.control;

import jakarta.ejb.ApplicationException;

/**
 * An admin request refused before it changed anything, with a message written for the operator. Thrown
 * through the EJB boundary as it is, and without rolling back: the refusal's audit row commits.
 */
@ApplicationException(rollback = false)
public class AdminActionRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why: each maps to its own HTTP status and problem type. */
    public enum Reason {
        /** A parameter is missing, unparsable or contradicts another. */
        INVALID_REQUEST,
        /** The window reaches back past what retention keeps. */
        BEYOND_RETENTION,
        /** The dead letter named does not exist (any more). */
        NOT_FOUND,
        /** The dead letter holds nothing that can be re-staged. */
        NOT_REDRIVABLE,
        /** A replay job of an overlapping window is running: one job per window at a time. */
        REPLAY_RUNNING,
        /** The replay job asked to stop has ended already. */
        REPLAY_ENDED
    }

    private final Reason reason;

    public AdminActionRefused(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
