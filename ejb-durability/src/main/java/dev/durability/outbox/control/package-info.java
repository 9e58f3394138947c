/** The drain's parts: claiming and stamping rows, confirmed publishing, configuration and metrics. */
package dev.durability.outbox.control;
