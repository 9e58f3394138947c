/**
 * Configuration shared by every feature (the service's identity, the database schema) and the start-up
 * check that stops the application, naming the key, when any {@code durability.*} value is invalid.
 * Each feature keeps its own typed configuration class in its {@code control} package.
 */
package dev.durability.config;
