/**
 * MicroProfile Health probes: readiness (database, broker, schema migrated) and liveness (the drain and the
 * consumers' supervision keep running). docs/operations.md shows how Kubernetes uses them.
 */
package dev.durability.health.boundary;
