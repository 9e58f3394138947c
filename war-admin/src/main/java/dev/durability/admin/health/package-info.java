/**
 * Registers the library's health checks ({@code dev.durability.health.boundary.HealthChecks}) for the whole EAR,
 * from this one web module: docs/decisions/0059-health-checks-listed-once.md.
 */
package dev.durability.admin.health;
