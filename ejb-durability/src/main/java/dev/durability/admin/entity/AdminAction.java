package dev.durability.admin.entity;

/**
 * One row of {@code admin_audit} as the admin pages list it.
 *
 * @param at when, UTC, to the second
 * @param details the request and its result (or the refusal's message), as JSON text
 */
public record AdminAction(
        Long id, String at, String principal, String channel, String action, String outcome, String details) {}
