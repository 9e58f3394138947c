/**
 * The admin actions' transactions: replays, dead-letter triage and the status read, each an EJB restricted to
 * role {@code durability-admin} that takes the caller's name from the container, never from its arguments.
 */
package dev.durability.admin.boundary;
