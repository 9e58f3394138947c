package dev.durability.outbox.control;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Holds this server's LISTEN connection for the outbox's staging notifications and wakes the drain when
 * one arrives (docs/decisions/0029-listen-notify-wake-up.md). Runs on a thread of its own until stopped;
 * a lost connection is reopened with backoff, and every (re)connect wakes the drain once, for what was
 * staged while nobody listened. The poll interval stays the fallback.
 *
 * <p>A connection can die without closing: the database host lost, a failover, a firewall dropping an idle flow.
 * A listener only reads, so it would wait for notifications that never come until the operating system's
 * keepalive gives up, about two hours. Every {@value #HEARTBEAT_SECONDS} s the connection answers a query
 * instead, within a network timeout of as long; one that does not is given up and a new one listens.
 */
public final class StagingNotifications implements Runnable {
    private static final Logger LOG = Logger.getLogger(StagingNotifications.class.getName());
    private static final int WAIT_MILLIS = 1_000;
    private static final long MOST_BACKOFF_MILLIS = 30_000;
    static final int HEARTBEAT_SECONDS = 10;

    private final DataSource dataSource;
    private final String channel;
    private final String applicationName;
    private final Runnable wake;
    private volatile boolean stopped;
    private volatile Connection current;

    /**
     * @param schema   the outbox's schema, which names the channel (a lower-case identifier, checked at start-up)
     * @param instance this server's instance name, which names its LISTEN connection in pg_stat_activity
     */
    public StagingNotifications(DataSource dataSource, String schema, String instance, Runnable wake) {
        this.dataSource = dataSource;
        this.channel = "durability_outbox_" + schema;
        this.applicationName = "durability-listen " + instance;
        this.wake = wake;
    }

    @Override
    public void run() {
        try {
            listen();
        } catch (LinkageError e) {
            // org.postgresql is not visible to the application: server.xml does not share the driver's library.
            LOG.warning(() -> "Outbox staging notifications unavailable, the drain only polls: the application cannot "
                    + "see the PostgreSQL driver (" + e + "); share it with <classloader commonLibraryRef=\"...\"/>");
        }
    }

    private void listen() {
        long backoff = 1_000;
        boolean failing = false;
        while (!stopped) {
            try (Connection connection = dataSource.getConnection()) {
                current = connection;
                int networkTimeout = connection.getNetworkTimeout();
                // Bounds every read on this connection but the waits for notifications, which set their own.
                connection.setNetworkTimeout(Runnable::run, HEARTBEAT_SECONDS * 1_000);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET application_name = '" + applicationName + "'");
                    statement.execute("LISTEN " + channel);
                }
                PGConnection notifications = connection.unwrap(PGConnection.class);
                if (failing) {
                    LOG.info("Outbox staging notifications received again");
                    failing = false;
                }
                backoff = 1_000;
                wake.run();
                long heartbeat = System.nanoTime() + TimeUnit.SECONDS.toNanos(HEARTBEAT_SECONDS);
                while (!stopped) {
                    PGNotification[] received = notifications.getNotifications(WAIT_MILLIS);
                    if (received != null && received.length > 0) {
                        wake.run();
                    }
                    if (System.nanoTime() - heartbeat >= 0) {
                        heartbeat(connection);
                        heartbeat = System.nanoTime() + TimeUnit.SECONDS.toNanos(HEARTBEAT_SECONDS);
                    }
                }
                unlisten(connection, networkTimeout);
            } catch (SQLException | RuntimeException e) {
                if (stopped) {
                    return;
                }
                LOG.log(
                        failing ? Level.FINE : Level.WARNING,
                        "Outbox staging notifications lost; the drain polls meanwhile, listening again in " + backoff
                                + " ms: " + e);
                failing = true;
                if (!sleep(backoff)) {
                    return;
                }
                backoff = Math.min(backoff * 2, MOST_BACKOFF_MILLIS);
            } finally {
                current = null;
            }
        }
    }

    /** Stops listening; the thread ends within a second. */
    public void stop() {
        stopped = true;
    }

    /**
     * Proves the connection still reaches a live session: an answer within the network timeout, or a failure that
     * ends this connection (the driver closes a connection whose read timed out).
     */
    private static void heartbeat(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    /** Gives the connection back to the pool as it was lent: listening to nothing, named as the pool names it. */
    private static void unlisten(Connection connection, int networkTimeout) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
            statement.execute("RESET application_name");
            connection.setNetworkTimeout(Runnable::run, networkTimeout);
        } catch (SQLException e) {
            LOG.log(Level.FINE, "UNLISTEN failed", e);
        }
    }

    private boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
