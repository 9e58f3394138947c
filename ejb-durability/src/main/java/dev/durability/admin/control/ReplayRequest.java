package dev.durability.admin.control;

import dev.durability.admin.control.AdminActionRefused.Reason;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A replay as asked: outbox rows created in {@code [from, to)}, optionally of one event type, optionally only
 * those the broker returned as unroutable; a dry run only counts. Built by {@link #parse} from the
 * parameters exactly as the operator typed them, so the REST API and the admin page refuse alike.
 */
public record ReplayRequest(OffsetDateTime from, OffsetDateTime to, String eventType, Scope scope, boolean dryRun)
        implements Serializable {

    /** The longest event type the outbox accepts; a longer one could match nothing. */
    static final int MAX_EVENT_TYPE_LENGTH = 255;

    // A '+' in a query string arrives as a space: "...T10:00:00 01:00" was "+01:00".
    private static final Pattern DECODED_PLUS = Pattern.compile("(.*T[0-9:.]+) ([0-9]{2}:[0-9]{2})$");

    /** Which rows of the window are re-staged. */
    public enum Scope {
        /** Every published or unroutable row (pending ones are on their way already). */
        ALL("all"),
        /** Only rows that came back unroutable: re-publish them once a queue is bound. */
        UNROUTABLE("unroutable");

        private final String parameter;

        Scope(String parameter) {
            this.parameter = parameter;
        }

        public String parameter() {
            return parameter;
        }
    }

    public ReplayRequest {
        if (!from.isBefore(to)) {
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST,
                    "the window is empty or inverted: from (" + from + ") must be before to (" + to + ")");
        }
    }

    /**
     * Reads the parameters of a replay; {@code eventType}, {@code scope} and {@code dryRun} may be null or blank
     * (all types, scope all, a real run).
     *
     * @throws AdminActionRefused naming the parameter and what is wrong with it
     */
    public static ReplayRequest parse(String from, String to, String eventType, String scope, String dryRun) {
        return new ReplayRequest(
                instant("from", from), instant("to", to), eventType(eventType), scope(scope), dryRun(dryRun));
    }

    /** The request as the audit and the API's answer echo it. */
    public JsonObjectBuilder toJson() {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("from", rfc3339(from))
                .add("to", rfc3339(to))
                .add("scope", scope.parameter())
                .add("dry_run", dryRun);
        return eventType == null ? json.addNull("event_type") : json.add("event_type", eventType);
    }

    /** The instant as RFC 3339 wants it: seconds always written (ISO-8601's shortest form may drop them). */
    public static String rfc3339(OffsetDateTime instant) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant);
    }

    /** The raw parameters of a request that could not be parsed, for the audit of its refusal. */
    public static JsonObject rawJson(String from, String to, String eventType, String scope, String dryRun) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        addRaw(json, "from", from);
        addRaw(json, "to", to);
        addRaw(json, "event_type", eventType);
        addRaw(json, "scope", scope);
        addRaw(json, "dry_run", dryRun);
        return json.build();
    }

    private static void addRaw(JsonObjectBuilder json, String name, String value) {
        if (value == null) {
            json.addNull(name);
        } else {
            // Bounded: a hostile megabyte parameter must not become a megabyte audit row.
            json.add(name, AdminAudit.storable(value.length() > 300 ? value.substring(0, 300) + "..." : value));
        }
    }

    private static OffsetDateTime instant(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST,
                    name + " is required: an RFC 3339 time with offset, e.g. 2026-01-31T00:00:00Z");
        }
        // RFC 3339 allows lower-case t and z; ISO-8601 parsing wants them upper-case.
        String text = value.strip().toUpperCase(Locale.ROOT);
        var plus = DECODED_PLUS.matcher(text);
        if (plus.matches()) {
            text = plus.group(1) + "+" + plus.group(2);
        }
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        } catch (DateTimeParseException e) {
            if (isLocal(text)) {
                throw new AdminActionRefused(
                        Reason.INVALID_REQUEST,
                        name + " has no UTC offset: add Z or an offset such as +01:00, so the window means the same"
                                + " instant on every server");
            }
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST, name + " is not an RFC 3339 time with offset (e.g. 2026-01-31T00:00:00Z)");
        }
    }

    private static boolean isLocal(String text) {
        try {
            LocalDateTime.parse(text, DateTimeFormatter.ISO_LOCAL_DATE_TIME);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private static String eventType(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String type = value.strip();
        if (type.length() > MAX_EVENT_TYPE_LENGTH) {
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST,
                    "event_type is longer than " + MAX_EVENT_TYPE_LENGTH + " characters: no event has such a type");
        }
        if (type.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new AdminActionRefused(
                    Reason.INVALID_REQUEST, "event_type holds a control character: no event has such a type");
        }
        return type;
    }

    private static Scope scope(String value) {
        if (value == null || value.isBlank()) {
            return Scope.ALL;
        }
        for (Scope scope : Scope.values()) {
            if (scope.parameter().equals(value.strip())) {
                return scope;
            }
        }
        throw new AdminActionRefused(Reason.INVALID_REQUEST, "scope must be all or unroutable");
    }

    private static boolean dryRun(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.strip()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new AdminActionRefused(Reason.INVALID_REQUEST, "dry_run must be true or false");
        };
    }
}
