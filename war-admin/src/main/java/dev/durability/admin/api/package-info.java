/**
 * The admin REST API under {@code /events} of the admin WAR's context root ({@code /admin/events} in the reference
 * deployment): replay for scripts and runbooks. Callers present a bearer
 * token that the server's MicroProfile JWT configuration verifies (liberty-config/durability-admin.xml); errors are
 * RFC 9457 problem details; {@code /openapi} describes it.
 */
package dev.durability.admin.api;
