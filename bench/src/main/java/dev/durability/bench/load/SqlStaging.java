package dev.durability.bench.load;

import dev.durability.bench.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Events staged in SQL, one insert per transaction (autocommit), as a service's business transaction would stage
 * them, through four connections on the schema's search path (the insert trigger notifies the drains' LISTEN
 * channel, named after current_schema()).
 */
public final class SqlStaging {
    public static final int CONNECTIONS = 4;
    private static final String INSERT = "INSERT INTO event_outbox (id, aggregate_id, event_type, envelope)"
            + " VALUES (CAST(? AS uuid), CAST(? AS uuid), ?, CAST(? AS jsonb))";

    private final String schema;
    private final String eventType;

    public SqlStaging(String schema, String eventType) {
        this.schema = schema;
        this.eventType = eventType;
    }

    /** One event on schedule after another, noting each commit once the schedule is past its warm-up. */
    public Commits atRate(Schedule schedule) throws InterruptedException, SQLException {
        Commits commits = new Commits();
        List<Connection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService stagers = Executors.newFixedThreadPool(CONNECTIONS);
        ThreadLocal<PreparedStatement> statements = ThreadLocal.withInitial(() -> {
            try {
                Connection connection = Database.connect(schema);
                connections.add(connection);
                return connection.prepareStatement(INSERT);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            for (long due = schedule.start(); due < schedule.end(); due += schedule.interval()) {
                Schedule.sleepUntil(due);
                boolean counted = due >= schedule.measured();
                stagers.execute(() -> {
                    try {
                        String id = stage(statements.get());
                        if (counted) {
                            commits.committed(id);
                        }
                    } catch (RuntimeException | SQLException e) {
                        commits.refused();
                    }
                });
            }
            stagers.shutdown();
            if (!stagers.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the stagers did not commit their events within a minute of the load");
            }
        } finally {
            stagers.shutdownNow();
            for (Connection connection : connections) {
                connection.close();
            }
        }
        return commits;
    }

    /**
     * Each connection commits the next event as soon as the last committed, until {@code end} (nanoTime): the most
     * this machine stages through them while everything else runs. An open-loop rate above that would only queue
     * events in this process.
     */
    public Commits asFastAsTheyCommit(long end) throws InterruptedException {
        Commits commits = new Commits();
        List<Thread> stagers = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            Thread stager = new Thread(() -> {
                try (Connection connection = Database.connect(schema);
                        PreparedStatement insert = connection.prepareStatement(INSERT)) {
                    while (System.nanoTime() < end) {
                        try {
                            commits.committed(stage(insert));
                        } catch (SQLException e) {
                            commits.refused();
                        }
                    }
                } catch (SQLException e) {
                    System.err.println("stager failed: " + e);
                }
            });
            stager.start();
            stagers.add(stager);
        }
        for (Thread stager : stagers) {
            stager.join();
        }
        return commits;
    }

    private String stage(PreparedStatement insert) throws SQLException {
        String id = Envelopes.newId().toString();
        String aggregate = UUID.randomUUID().toString();
        insert.setString(1, id);
        insert.setString(2, aggregate);
        insert.setString(3, eventType);
        insert.setString(4, Envelopes.order(id, aggregate, eventType, 1));
        insert.executeUpdate();
        return id;
    }
}
