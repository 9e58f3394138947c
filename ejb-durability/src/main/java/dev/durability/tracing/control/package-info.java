/**
 * The trace context of an event as text ({@link dev.durability.tracing.control.TraceContext}) and the spans of
 * staging, publishing, consuming, dead-lettering and replaying ({@link dev.durability.tracing.control.MessagingSpans}).
 */
package dev.durability.tracing.control;
