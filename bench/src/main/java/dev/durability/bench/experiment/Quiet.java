package dev.durability.bench.experiment;

import dev.durability.bench.db.Database;
import java.sql.SQLException;

/**
 * Waits until the bench servers have nothing left to do from an earlier load: every event published (or kept apart
 * as unroutable) and every demo order shipped by the shipments consumer, so no run pays for another's background
 * work.
 */
final class Quiet {
    private Quiet() {}

    static void await(String schema) throws SQLException, InterruptedException {
        for (int i = 0; i < 600; i++) {
            double left = Database.number("SELECT (SELECT count(*) FROM " + schema + ".event_outbox"
                    + " WHERE published_at IS NULL AND unroutable_at IS NULL)"
                    + " + (SELECT count(*) FROM " + schema + ".demo_orders o WHERE NOT EXISTS"
                    + " (SELECT 1 FROM " + schema + ".demo_shipments s WHERE s.order_id = o.id))");
            if (left == 0) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the bench servers did not go quiet in 5 minutes");
    }
}
