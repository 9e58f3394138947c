package dev.durability.demo.orders.boundary;

import dev.durability.demo.orders.entity.DemoOrder;
import dev.durability.demo.orders.entity.InvalidOrderException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.OffsetDateTime;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One order as a client sent it, its JSON types checked field by field: {@code id} an optional UUID string,
 * {@code customer} and {@code sku} strings, {@code quantity} a whole number. The domain's rules (lengths,
 * range) stay with {@link DemoOrder}, which checks them when the order is built. Public because the order
 * service's business methods take it.
 */
public record OrderRequest(UUID id, String customer, String sku, int quantity) {
    private static final Set<String> FIELDS = Set.of("id", "customer", "sku", "quantity");
    // UUID.fromString also takes short forms such as 1-2-3-4-5; an id is the canonical 36 characters.
    private static final Pattern UUID_TEXT =
            Pattern.compile("\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");
    private static final int ECHOED_KEY_LENGTH = 40;

    /**
     * @param item how the client names this order in a larger request ({@code orders[17]}), or empty when it
     *             is the whole body
     * @throws InvalidOrderException naming the first field that is missing, unknown or of the wrong type
     */
    static OrderRequest from(JsonValue value, String item) {
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new InvalidOrderException(
                    item,
                    "must be a JSON object {\"customer\", \"sku\", \"quantity\"}, was " + RequestBody.kind(value));
        }
        JsonObject order = value.asJsonObject();
        for (String key : order.keySet()) {
            if (!FIELDS.contains(key)) {
                // Refused rather than ignored: a misspelt "id" would otherwise turn a safe retry into a second order.
                String name =
                        key.length() <= ECHOED_KEY_LENGTH ? "\"" + key + "\"" : "of " + key.length() + " characters";
                throw new InvalidOrderException(
                        item.isEmpty() ? "the order" : item,
                        "has an unknown field " + name + "; an order has only id, customer, sku and quantity");
            }
        }
        return new OrderRequest(
                id(order, field(item, "id")),
                text(order, "customer", field(item, "customer")),
                text(order, "sku", field(item, "sku")),
                quantity(order, field(item, "quantity")));
    }

    /** This order with an id: its own, or a new random one when the client sent none. */
    OrderRequest identified() {
        return identified(UUID.randomUUID());
    }

    /** This order with the client's id, or this one when the client gave none. */
    OrderRequest identified(UUID otherwise) {
        return id != null ? this : new OrderRequest(otherwise, customer, sku, quantity);
    }

    /** The entity, placed by {@code caller}, which refuses an order that breaks the domain's rules. */
    DemoOrder toOrder(OffsetDateTime placedAt, String caller) {
        return new DemoOrder(id, customer, sku, quantity, placedAt, caller);
    }

    private static String field(String item, String name) {
        return item.isEmpty() ? name : item + "." + name;
    }

    private static UUID id(JsonObject order, String field) {
        JsonValue value = order.get("id");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (value.getValueType() != JsonValue.ValueType.STRING) {
            throw new InvalidOrderException(field, "must be a UUID string, was " + RequestBody.kind(value));
        }
        String text = ((JsonString) value).getString();
        if (!UUID_TEXT.matcher(text).matches()) {
            throw new InvalidOrderException(field, "must be a UUID of 32 hex digits in groups 8-4-4-4-12");
        }
        return UUID.fromString(text);
    }

    private static String text(JsonObject order, String name, String field) {
        JsonValue value = order.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            throw new InvalidOrderException(field, "is required");
        }
        if (value.getValueType() != JsonValue.ValueType.STRING) {
            throw new InvalidOrderException(field, "must be a JSON string, was " + RequestBody.kind(value));
        }
        return ((JsonString) value).getString();
    }

    private static int quantity(JsonObject order, String field) {
        JsonValue value = order.get("quantity");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            throw new InvalidOrderException(field, "is required");
        }
        if (value.getValueType() != JsonValue.ValueType.NUMBER) {
            throw new InvalidOrderException(field, "must be a JSON number, was " + RequestBody.kind(value));
        }
        try {
            // Exact: 1.5, 1e400 or 4294967297 must not become some other whole number on the way.
            return ((JsonNumber) value).bigDecimalValue().intValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw new InvalidOrderException(field, "must be a whole number between 1 and " + DemoOrder.MAX_QUANTITY);
        }
    }
}
