/** The start-up bean that validates every {@code durability.*} property before anything else runs. */
package dev.durability.config.boundary;
