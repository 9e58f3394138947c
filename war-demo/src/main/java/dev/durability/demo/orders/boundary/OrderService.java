package dev.durability.demo.orders.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.demo.orders.entity.DemoOrder;
import dev.durability.demo.orders.entity.InvalidOrderException;
import dev.durability.demo.orders.entity.OrderAlreadyExistsException;
import dev.durability.envelope.EventEnvelope;
import dev.durability.outbox.OutboxStager;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Places orders. The order rows and their {@code order.placed} events commit together in the method's
 * container transaction, or none exists: this is the whole of what an adopting team writes.
 *
 * <p>The orders are flushed inside the method, so a duplicate id is refused there, as
 * {@link OrderAlreadyExistsException}, and is never confused with a commit that failed: once the method
 * returned, a failure means the outcome is unknown, not that nothing changed.
 */
@Stateless
public class OrderService {
    private static final String UNIQUE_VIOLATION = "23505";

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Inject
    ServiceConfig service;

    @Inject
    OutboxStager outbox;

    @Resource
    SessionContext session;

    /**
     * Returns the envelope id of the staged event.
     *
     * @throws InvalidOrderException      the order breaks a domain rule; nothing was written
     * @throws OrderAlreadyExistsException an order with this id exists; nothing was written
     */
    public UUID place(OrderRequest request) {
        DemoOrder order = request.toOrder(now(), caller());
        em.persist(order);
        flush();
        return outbox.stage("order.placed", order.id(), placed(order));
    }

    /**
     * Places all orders or none, with one flush of the orders and one batch of their events. Returns the
     * envelope ids in the requests' order.
     *
     * @throws InvalidOrderException      an order breaks a domain rule; the message names it as
     *                                    {@code orders[index]}; nothing was written
     * @throws OrderAlreadyExistsException an order with one of these ids exists; nothing was written
     */
    public List<UUID> placeAll(List<OrderRequest> requests) {
        OffsetDateTime placedAt = now();
        String caller = caller();
        List<DemoOrder> orders = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            try {
                orders.add(requests.get(i).toOrder(placedAt, caller));
            } catch (InvalidOrderException e) {
                throw e.in("orders[" + i + "]");
            }
        }
        orders.forEach(em::persist);
        flush();
        List<EventEnvelope> events = new ArrayList<>(orders.size());
        for (DemoOrder order : orders) {
            events.add(outbox.envelope("order.placed", order.id(), placed(order)));
        }
        List<UUID> eventIds = outbox.stage(events);
        // The orders are written and not read again in this transaction; the commit need not look at them.
        em.clear();
        return eventIds;
    }

    /**
     * The event id of the order this request placed, if the caller's order with its id and the same content exists: a
     * retry of a request whose answer was lost finds it. Empty when there is none, or it holds other content.
     */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<UUID> placedEvent(OrderRequest request) {
        DemoOrder order = em.find(DemoOrder.class, request.id());
        if (order == null
                || !order.placedBy(caller())
                || !order.customer().equals(request.customer())
                || !order.sku().equals(request.sku())
                || order.quantity() != request.quantity()) {
            return Optional.empty();
        }
        List<?> events = em.createNativeQuery(service.qualify("SELECT CAST(id AS text) FROM {schema}.event_outbox"
                        + " WHERE aggregate_id = ? AND event_type = 'order.placed'"))
                .setParameter(1, request.id())
                .getResultList();
        return events.size() == 1 ? Optional.of(UUID.fromString((String) events.get(0))) : Optional.empty();
    }

    /** The caller's order {@code id}, or null when there is none or another caller placed it. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public DemoOrder find(UUID id) {
        DemoOrder order = em.find(DemoOrder.class, id);
        return order != null && order.placedBy(caller()) ? order : null;
    }

    /** Which of these ids name an order that exists. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Set<UUID> existing(Collection<UUID> ids) {
        return new HashSet<>(em.createQuery("SELECT o.id FROM DemoOrder o WHERE o.id IN :ids", UUID.class)
                .setParameter("ids", ids)
                .getResultList());
    }

    private void flush() {
        try {
            em.flush();
        } catch (PersistenceException e) {
            if (isUniqueViolation(e)) {
                throw new OrderAlreadyExistsException("an order with this id already exists", e);
            }
            throw e;
        }
    }

    private static boolean isUniqueViolation(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            // A batched insert reports the statement's own error as the batch exception's next one.
            for (SQLException sql = cause instanceof SQLException s ? s : null;
                    sql != null;
                    sql = sql.getNextException()) {
                if (UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The authenticated caller the orders API's role guarantees (docs/decisions/0031-demo-api-authentication.md). */
    private String caller() {
        return session.getCallerPrincipal().getName();
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
    }

    private static OrderPlaced placed(DemoOrder order) {
        return new OrderPlaced(order.id(), order.customer(), order.sku(), order.quantity(), order.placedAt());
    }
}
