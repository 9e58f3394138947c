package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What became of a fault scenario's orders, end to end: the client's view (accepted, refused, unknown), the
 * orders in the database, the {@code order.placed} events staged and delivered to a queue of the test's own,
 * the shipments the demo consumer created, and the poison it dead-lettered. A duplicate delivery is explained
 * when its event was published more than once for a reason the outbox counts: a failed attempt (the row's
 * {@code attempts}) or a lease recovery.
 *
 * @param tag what the scenario's customers (and any poison it injected) are tagged with
 * @param unknownPlaced of the orders whose outcome the client never learnt, how many exist
 * @param ordersTwice orders created a second time for one client request (one customer tag, one key)
 * @param explainable publications beyond the first the outbox accounts for (failed attempts, lease recoveries)
 * @param shippedTwice orders shipped more than once
 * @param lost accepted orders missing, staged events never delivered, orders never shipped
 */
record FaultAccounting(
        String scenario,
        String tag,
        long accepted,
        long refused,
        long unknown,
        long unknownPlaced,
        long orders,
        long ordersTwice,
        long staged,
        long delivered,
        long duplicates,
        long explainable,
        long shipments,
        long shippedTwice,
        long poison,
        long deadLetters,
        long lost) {

    /**
     * The fault suite's contract (docs/reliability.md): nothing lost, no order created or shipped twice, one event and
     * one shipment per order, every duplicate delivery a publication the outbox counted, every poison recorded once.
     */
    void assertHoldsTheContract() {
        assertThat(accepted()).as("orders accepted under the fault: %s", this).isPositive();
        assertThat(lost()).as("lost: %s", this).isZero();
        assertThat(ordersTwice())
                .as("requests that created a second order: %s", this)
                .isZero();
        assertThat(shippedTwice()).as("orders shipped twice: %s", this).isZero();
        assertThat(orders())
                .as("orders = accepted + unknown ones that were placed: %s", this)
                .isEqualTo(accepted() + unknownPlaced());
        assertThat(shipments()).as("one shipment per order: %s", this).isEqualTo(orders());
        assertThat(staged()).as("one order.placed per order: %s", this).isEqualTo(orders());
        assertThat(duplicates())
                .as(
                        "duplicate deliveries, each a publication the outbox counted (failed attempt, lease recovery): %s",
                        this)
                .isLessThanOrEqualTo(explainable());
        assertThat(deadLetters()).as("poison recorded once each: %s", this).isEqualTo(poison());
    }

    static final Path REPORT = Path.of("target", "reliability", "accounting.md");

    /** Waits (at most {@code patience}) until nothing is in flight any more, then takes the accounting. */
    static FaultAccounting settle(
            String scenario,
            OrderLoad load,
            EventQueue placed,
            long poison,
            DoubleSupplier leaseRecoveries,
            Duration patience) {
        return settle(Coordinates.mainSchema(), scenario, load, placed, poison, leaseRecoveries, patience);
    }

    /** As above, for servers on schema {@code schema} (one of a test's own). */
    static FaultAccounting settle(
            String schema,
            String scenario,
            OrderLoad load,
            EventQueue placed,
            long poison,
            DoubleSupplier leaseRecoveries,
            Duration patience) {
        FaultAccounting[] last = new FaultAccounting[1];
        try {
            await("scenario " + scenario + " settled: every order delivered and shipped, every poison recorded")
                    .atMost(patience)
                    .pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions()
                    .until(() -> {
                        // Published first, then counted: a row published again after this check is already
                        // delivered when take() reads the queue, or the next poll sees it.
                        boolean published = unpublished(schema, load) == 0;
                        last[0] = take(schema, scenario, load, placed, poison, leaseRecoveries);
                        return published && last[0].lost() == 0 && last[0].deadLetters() >= poison;
                    });
        } catch (ConditionTimeoutException e) {
            // Reported as it stands: the assertions on the accounting say what is missing.
        }
        FaultAccounting result =
                last[0] != null ? last[0] : take(schema, scenario, load, placed, poison, leaseRecoveries);
        result.append();
        return result;
    }

    private static FaultAccounting take(
            String schema,
            String scenario,
            OrderLoad load,
            EventQueue placed,
            long poison,
            DoubleSupplier leaseRecoveries) {
        String tagged = "customer LIKE ? || '-%'";
        String ours = "(SELECT id FROM " + schema + ".demo_orders WHERE " + tagged + ")";
        try (Connection c = OutboxTable.connect()) {
            // One snapshot for every count: read one after the other, a shipment committed between two reads
            // made shipments fewer than the orders shipped (an order "shipped -1 times").
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            c.setReadOnly(true);
            Map<String, OrderLoad.Outcome> outcomes = load.outcomes();
            Set<String> customers = strings(c, "SELECT customer FROM " + schema + ".demo_orders WHERE " + tagged, load);
            long orders = number(c, "SELECT count(*) FROM " + schema + ".demo_orders WHERE " + tagged, load);
            Set<String> staged = strings(
                    c,
                    "SELECT id::text FROM " + schema + ".event_outbox WHERE event_type = 'order.placed'"
                            + " AND aggregate_id IN " + ours,
                    load);
            long retried = number(
                    c,
                    "SELECT coalesce(sum(attempts), 0) FROM " + schema + ".event_outbox"
                            + " WHERE event_type = 'order.placed' AND aggregate_id IN " + ours,
                    load);
            long shipments =
                    number(c, "SELECT count(*) FROM " + schema + ".demo_shipments WHERE order_id IN " + ours, load);
            long shipped = number(
                    c,
                    "SELECT count(DISTINCT order_id) FROM " + schema + ".demo_shipments WHERE order_id IN " + ours,
                    load);
            long deadLetters = number(
                    c,
                    "SELECT count(*) FROM " + schema + ".dead_letter_audit WHERE original_queue = 'orders.shipments'"
                            + " AND (position(convert_to(? || '-poison-', 'UTF8') IN raw_bytes) > 0"
                            + " OR strpos(CAST(envelope AS text), ? || '-poison-') > 0)",
                    load);
            List<EventQueue.Message> deliveries = placed.messages().stream()
                    .filter(m -> staged.contains(m.id()))
                    .toList();
            Set<String> delivered =
                    deliveries.stream().map(EventQueue.Message::id).collect(Collectors.toSet());
            Set<String> acceptedMissing = new HashSet<>(load.accepted().keySet());
            acceptedMissing.removeAll(customers);
            long unknownPlaced = outcomes.entrySet().stream()
                    .filter(e -> e.getValue() == OrderLoad.Outcome.UNKNOWN && customers.contains(e.getKey()))
                    .count();
            long undelivered =
                    staged.stream().filter(id -> !delivered.contains(id)).count();
            long lost = acceptedMissing.size() + undelivered + (orders - shipped);
            // Read after the deliveries: a recovery is counted when its rows are claimed, before they are published
            // again, so every duplicate seen above is already in the count.
            long recoveries = Math.round(leaseRecoveries.getAsDouble());
            return new FaultAccounting(
                    scenario,
                    load.tag(),
                    load.count(OrderLoad.Outcome.ACCEPTED),
                    load.count(OrderLoad.Outcome.REFUSED),
                    load.count(OrderLoad.Outcome.UNKNOWN),
                    unknownPlaced,
                    orders,
                    orders - customers.size(),
                    staged.size(),
                    delivered.size(),
                    deliveries.size() - delivered.size(),
                    retried + recoveries,
                    shipments,
                    shipments - shipped,
                    poison,
                    deadLetters,
                    lost);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The scenario's events not yet published (pending, or claimed by a server that died). */
    private static long unpublished(String schema, OrderLoad load) throws SQLException {
        try (Connection c = OutboxTable.connect()) {
            return number(
                    c,
                    "SELECT count(*) FROM " + schema
                            + ".event_outbox WHERE published_at IS NULL AND unroutable_at IS NULL"
                            + " AND aggregate_id IN (SELECT id FROM " + schema
                            + ".demo_orders WHERE customer LIKE ? || '-%')",
                    load);
        }
    }

    private static long number(Connection c, String sql, OrderLoad load) throws SQLException {
        try (PreparedStatement s = tagged(c, sql, load);
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Set<String> strings(Connection c, String sql, OrderLoad load) throws SQLException {
        Set<String> values = new HashSet<>();
        try (PreparedStatement s = tagged(c, sql, load);
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    /** The statement with the scenario's tag in every parameter: each one selects the scenario's rows. */
    private static PreparedStatement tagged(Connection c, String sql, OrderLoad load) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        for (int i = 1; i <= s.getParameterMetaData().getParameterCount(); i++) {
            s.setString(i, load.tag());
        }
        return s;
    }

    /** One row of the reliability table (docs/reliability.md is made of these by system-tests/fault-suite). */
    String markdownRow() {
        return String.format(
                "| %s | %d | %d (%d became orders) | %d | %d | %d | %d | %d | %d (%d publications explained) | %d | %d"
                        + " | %d | %d | %d |",
                scenario,
                accepted,
                unknown,
                unknownPlaced,
                refused,
                orders,
                ordersTwice,
                staged,
                delivered,
                duplicates,
                explainable,
                shipments,
                shippedTwice,
                poison,
                deadLetters,
                lost);
    }

    private void append() {
        try {
            Files.createDirectories(REPORT.getParent());
            Files.writeString(REPORT, markdownRow() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return markdownRow();
    }
}
