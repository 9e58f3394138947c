package dev.durability.outbox.entity;

import java.util.UUID;

/** A row just stamped published, with its publish lag (staging to stamp, on the database clock). */
public record PublishedRow(UUID id, Double lagSeconds) {}
