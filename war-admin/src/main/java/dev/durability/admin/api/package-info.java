/**
 * The admin REST API under {@code /admin/events}: replay for scripts and runbooks. Callers present a bearer
 * token that the server's MicroProfile JWT configuration verifies (liberty-config/server.xml); errors are
 * RFC 9457 problem details; {@code /openapi} describes it.
 */
package dev.durability.admin.api;
