package dev.durability.admin.entity;

/**
 * A running replay job as the server that took it for its next slice reads it. Instants are PostgreSQL's text of
 * the columns, exact to the microsecond, and go back to it as they came.
 *
 * @param afterCreatedAt with {@code afterId}, the last row a committed slice looked at; null before the first slice
 * @param cancelling an operator asked it to stop: it ends now, keeping what it restaged
 */
public record TakenReplayJob(
        String id,
        String windowFrom,
        String windowTo,
        String eventType,
        Boolean onlyUnroutable,
        String afterCreatedAt,
        String afterId,
        String replayTraceparent,
        Boolean cancelling) {}
