package dev.durability.bench.db;

import dev.durability.it.Coordinates;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/** The database the benchmark measures, as the system tests reach it (DB_HOST, DB_PORT, DB_NAME, DB_USER...). */
public final class Database {
    private Database() {}

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(Coordinates.jdbcUrl(), Coordinates.dbUser(), Coordinates.dbPassword());
    }

    /** A connection whose unqualified names are the schema's, as a service's own connections are. */
    public static Connection connect(String schema) throws SQLException {
        Connection connection = connect();
        try (Statement path = connection.createStatement()) {
            path.execute("SET search_path = " + schema);
        }
        return connection;
    }

    /** Runs each statement in its own transaction. */
    public static void execute(String... statements) throws SQLException {
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** The first column of the first row, as a number. */
    public static double number(String sql) throws SQLException {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            if (!result.next()) {
                throw new SQLException("no row: " + sql);
            }
            return result.getDouble(1);
        }
    }

    /** The first column of the first row, as text. */
    public static String text(String sql) throws SQLException {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            if (!result.next()) {
                throw new SQLException("no row: " + sql);
            }
            return result.getString(1);
        }
    }

    /** The server's version, as the report names it (15.20, not the build string). */
    public static String serverVersion() throws SQLException {
        return text("SHOW server_version").split(" ")[0];
    }

    /** The variables pgbench and psql read to reach the same database. */
    public static Map<String, String> clientEnvironment() {
        return Map.of(
                "PGHOST", Coordinates.dbHost(),
                "PGPORT", Integer.toString(Coordinates.dbPort()),
                "PGUSER", Coordinates.dbUser(),
                "PGDATABASE", Coordinates.env("DB_NAME", "postgres"),
                "PGPASSWORD", Coordinates.dbPassword());
    }
}
