/** The inbox's parts: consumer discovery, queue topology, retry policy, confirmed sends, configuration and metrics. */
package dev.durability.inbox.control;
