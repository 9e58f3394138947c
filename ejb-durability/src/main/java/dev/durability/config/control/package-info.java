/** The service's identity and schema configuration, and the exception that names an invalid key. */
package dev.durability.config.control;
