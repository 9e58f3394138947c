/** The retention pruner's hourly timer, one per server. */
package dev.durability.retention.boundary;
