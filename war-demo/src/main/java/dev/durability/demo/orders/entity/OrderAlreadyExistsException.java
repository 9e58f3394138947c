package dev.durability.demo.orders.entity;

import jakarta.ejb.ApplicationException;

/**
 * The database refused to insert an order because an order with its id exists: the request changed
 * nothing. An application exception, so the container rolls back and hands it to the caller as it is;
 * only this refusal, never a failure whose outcome is unknown, may be answered "nothing was changed".
 */
@ApplicationException(rollback = true)
public class OrderAlreadyExistsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderAlreadyExistsException(String message, Throwable refusal) {
        super(message, refusal);
    }
}
