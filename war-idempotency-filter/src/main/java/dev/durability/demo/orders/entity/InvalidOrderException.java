package dev.durability.demo.orders.entity;

/** An order that breaks the demo domain's rules; the message says which. */
public class InvalidOrderException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidOrderException(String message) {
        super(message);
    }
}
