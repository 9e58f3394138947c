/**
 * Operator actions on the pipeline (docs/admin.md): replay a window of the outbox, triage dead letters
 * (redrive, known-bad), and read the pipeline's status. Only callers in role {@code durability-admin} reach
 * them, and every action, accepted or refused, leaves a log line and an {@code admin_audit} row naming who
 * asked. The admin WAR's pages and REST API are their callers.
 */
package dev.durability.admin;
