package dev.durability.admin.boundary;

/** The one role the admin actions require; docs/admin.md says how a deployment grants it. */
public final class AdminRole {
    public static final String NAME = "durability-admin";

    private AdminRole() {}
}
