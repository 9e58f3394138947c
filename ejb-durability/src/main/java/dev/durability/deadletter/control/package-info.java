/**
 * Reading a dead letter (x-death, the application's wrapper, occurrence tokens), writing the wrapper,
 * configuration and metrics.
 */
package dev.durability.deadletter.control;
