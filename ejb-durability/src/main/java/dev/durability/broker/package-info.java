/**
 * The one AMQP connection each server keeps to RabbitMQ, and the topology (exchanges) every feature
 * publishes to or consumes from, declared idempotently whenever the connection opens.
 */
package dev.durability.broker;
