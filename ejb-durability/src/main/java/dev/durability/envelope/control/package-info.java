/**
 * Internal: the envelope's JSON form, written and read field by field, and the streaming reader of the
 * fields that travel as AMQP properties.
 */
package dev.durability.envelope.control;
