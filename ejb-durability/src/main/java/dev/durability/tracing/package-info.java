/**
 * W3C trace context for events (docs/operations.md, "Tracing"): recorded at staging, carried by every message and
 * continued by the consumers, with MicroProfile Telemetry's spans. The subpackage {@code control} is the library's
 * internals and may change in any release (docs/decisions/0068-api-packages.md).
 */
package dev.durability.tracing;
