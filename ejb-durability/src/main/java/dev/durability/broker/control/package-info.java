/** The broker connection, its configuration and the exchanges it declares. */
package dev.durability.broker.control;
