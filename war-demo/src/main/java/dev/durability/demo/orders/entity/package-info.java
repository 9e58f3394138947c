/** The demo order entity, the rules it guards, and the refusals of an order they raise. */
package dev.durability.demo.orders.entity;
