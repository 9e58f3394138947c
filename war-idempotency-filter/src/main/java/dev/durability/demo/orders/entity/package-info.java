/** The demo order entity and the rules it guards. */
package dev.durability.demo.orders.entity;
