/**
 * Where the time goes: JFR recordings of a server (started and stopped with jcmd, read with
 * {@code jdk.jfr.consumer.RecordingFile}), and the CPU time of Liberty, RabbitMQ and PostgreSQL from /proc.
 */
package dev.durability.bench.profile;
