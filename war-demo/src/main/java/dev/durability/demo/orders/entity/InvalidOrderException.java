package dev.durability.demo.orders.entity;

import jakarta.ejb.ApplicationException;

/**
 * An order that breaks the demo domain's rules, or a request that does not describe an order; the message
 * names the field and says what is wrong with it. An application exception, so an EJB hands it to its
 * caller as it is (the client's 400) instead of logging it and wrapping it as a failure of the server.
 */
@ApplicationException(rollback = true)
public class InvalidOrderException extends IllegalArgumentException {
    private static final long serialVersionUID = 2L;

    private final String field;
    private final String problem;

    /**
     * @param field   the offending field, as the client named it ({@code quantity}, {@code orders[17].sku})
     * @param problem what is wrong with it, completing a sentence that starts with the field
     */
    public InvalidOrderException(String field, String problem) {
        super(field + " " + problem);
        this.field = field;
        this.problem = problem;
    }

    /** The same refusal, of the order that is {@code item} of a larger request ({@code orders[17]}). */
    public InvalidOrderException in(String item) {
        return new InvalidOrderException(item + "." + field, problem);
    }
}
