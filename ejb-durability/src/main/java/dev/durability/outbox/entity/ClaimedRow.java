package dev.durability.outbox.entity;

import java.util.UUID;

/**
 * An outbox row a claim took, as the claim statement returns it.
 *
 * @param envelope   the envelope exactly as stored (PostgreSQL's jsonb text), published as it is
 * @param publication how often the row was published afresh (a replay increments it), sent as a header
 * @param recovered  whether the row's previous claim had expired: a worker died or stalled holding it
 * @param candidates how many due rows the claim looked at, so the drain can tell whether more are due
 * @param traceparent the W3C context the row was staged under, or null when nothing traced the staging
 * @param tracestate its {@code tracestate}, or null
 * @param replayTraceparent the context of the replay or redrive that restaged the row last, or null
 */
public record ClaimedRow(
        UUID id,
        String eventType,
        String envelope,
        Integer publication,
        Boolean recovered,
        Long candidates,
        String traceparent,
        String tracestate,
        String replayTraceparent) {}
