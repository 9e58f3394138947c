/** The retention pruner's interval timer, one per server. */
package dev.durability.retention.boundary;
