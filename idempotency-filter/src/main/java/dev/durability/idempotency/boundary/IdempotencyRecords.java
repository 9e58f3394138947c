package dev.durability.idempotency.boundary;

import dev.durability.config.control.ServiceConfig;
import dev.durability.idempotency.control.CacheKey;
import dev.durability.idempotency.entity.ClaimOutcome;
import dev.durability.idempotency.entity.StoredResponse;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Claims, renews and finalizes {@code idempotency_responses} rows. A claim and a renewal are each a transaction
 * of their own (autocommit, outside any container transaction): a claim is committed before the handler runs,
 * so every instance sees it. A success is recorded inside the filter's transaction, the one the handler's
 * effects join, so the two commit together or not at all (docs/decisions/0051-answer-commits-with-effects.md);
 * a failure, and the answer of a handler that does not join, are recorded in statements of their own. Plain
 * JDBC on the library's data source: the filter serves any WAR of the application, none of which need a
 * persistence unit for it (docs/decisions/0030-idempotency-records.md).
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class IdempotencyRecords {
    // A claim takes the row when it is new, expired, failed or abandoned (its claim ran out), for any body: a
    // failed request and a lapsed one kept nothing of theirs (docs/decisions/0053-failed-keys-take-a-new-body.md);
    // otherwise the row stays as it is and no row comes back.
    //
    // The claim commits without waiting for its WAL flush (synchronous_commit off for this one statement's
    // transaction, set by the statement itself: no extra round trip). Other sessions see it at once, as with any
    // commit. Only a database crash can lose it, and then nothing depended on it: the handler's own commit, and
    // the finalize after it, flush the log up to and past the claim, so a claim is durable before anything it
    // guarded is (docs/decisions/0040-asynchronous-idempotency-claims.md).
    private static final String CLAIM = """
            INSERT INTO {schema}.idempotency_responses AS r (cache_key, body_fingerprint, state, claim_generation, method,
                path, claimed_at, claim_expires_at, expires_at)
            SELECT CAST(? AS bytea), CAST(? AS bytea), 'processing', nextval('{schema}.idempotency_claim_generation'),
                   CAST(? AS text), CAST(? AS text), now(),
                   now() + CAST(? AS bigint) * interval '1 millisecond',
                   now() + CAST(? AS bigint) * interval '1 second'
              FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
            ON CONFLICT (cache_key) DO UPDATE SET
                body_fingerprint = EXCLUDED.body_fingerprint,
                state = 'processing',
                claim_generation = EXCLUDED.claim_generation,
                method = EXCLUDED.method,
                path = EXCLUDED.path,
                created_at = CASE WHEN r.expires_at <= now() THEN now() ELSE r.created_at END,
                claimed_at = now(),
                claim_expires_at = EXCLUDED.claim_expires_at,
                expires_at = EXCLUDED.expires_at,
                finalized_at = NULL,
                response_status = NULL,
                response_headers = NULL,
                response_body = NULL,
                body_omitted = false
            WHERE r.expires_at <= now()
               OR r.state = 'failed'
               OR (r.state = 'processing' AND r.claim_expires_at <= now())
            RETURNING claim_generation, r.xmax::text <> '0' AS retaken
            """;
    private static final String FIND = """
            SELECT state, body_fingerprint = ? AS same_body, expires_at <= now() AS expired,
                   GREATEST(0, ceil(extract(epoch FROM claim_expires_at - now()) * 1000))::bigint AS claim_left_ms,
                   response_status, response_headers::text, response_body, body_omitted
              FROM {schema}.idempotency_responses WHERE cache_key = ?
            """;
    private static final String SUCCEED = """
            UPDATE {schema}.idempotency_responses
               SET state = 'succeeded', finalized_at = now(), response_status = ?, response_headers = ?::jsonb,
                   response_body = ?, body_omitted = ?
             WHERE cache_key = ? AND claim_generation = ? AND state = 'processing'
            """;
    private static final String FAIL = """
            UPDATE {schema}.idempotency_responses SET state = 'failed', finalized_at = now(), response_status = ?
             WHERE cache_key = ? AND claim_generation = ? AND state = 'processing'
            """;
    private static final String RENEW = """
            UPDATE {schema}.idempotency_responses SET claim_expires_at = now() + CAST(? AS bigint) * interval '1 millisecond'
             WHERE cache_key = ? AND claim_generation = ? AND state = 'processing'
            """;
    // A row that changed between the claim and the look-up (finalized, expired, pruned) is claimed again; more
    // rounds than this mean other requests keep racing for the key, and the caller is told to come back.
    private static final int CLAIM_ROUNDS = 3;

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    @Inject
    ServiceConfig service;

    /**
     * Takes the key for a request, or says why it cannot run: another request holds it, it was used for
     * another body, or a request with it succeeded.
     */
    public ClaimOutcome claim(
            CacheKey key, byte[] bodyFingerprint, String method, String path, Duration claimTimeout, Duration expiry) {
        try (Connection connection = autocommitting()) {
            for (int round = 0; round < CLAIM_ROUNDS; round++) {
                try (PreparedStatement claim = connection.prepareStatement(service.qualify(CLAIM))) {
                    claim.setBytes(1, key.sha256());
                    claim.setBytes(2, bodyFingerprint);
                    claim.setString(3, method);
                    claim.setString(4, path);
                    claim.setLong(5, claimTimeout.toMillis());
                    claim.setLong(6, expiry.toSeconds());
                    try (ResultSet claimed = claim.executeQuery()) {
                        if (claimed.next()) {
                            return new ClaimOutcome.Claimed(claimed.getLong(1), claimed.getBoolean(2));
                        }
                    }
                }
                try (PreparedStatement find = connection.prepareStatement(service.qualify(FIND))) {
                    find.setBytes(1, bodyFingerprint);
                    find.setBytes(2, key.sha256());
                    try (ResultSet row = find.executeQuery()) {
                        if (!row.next() || row.getBoolean("expired")) {
                            continue;
                        }
                        Duration claimLeft = Duration.ofMillis(row.getLong("claim_left_ms"));
                        String state = row.getString("state");
                        if (state.equals("failed") || (state.equals("processing") && claimLeft.isZero())) {
                            continue; // failed, or a claim that ran out since the insert: take it next round
                        }
                        if (!row.getBoolean("same_body")) {
                            return new ClaimOutcome.BodyMismatch();
                        }
                        if (state.equals("succeeded")) {
                            return new ClaimOutcome.Completed(stored(row));
                        }
                        return new ClaimOutcome.InProgress(claimLeft);
                    }
                }
            }
            return new ClaimOutcome.InProgress(Duration.ofSeconds(1));
        } catch (SQLException e) {
            throw new IllegalStateException("could not claim an idempotency key: " + e.getMessage(), e);
        }
    }

    /**
     * Records the handler's 2xx answer, if the request still holds its claim.
     *
     * @return false when a newer claim took the key (this request outlived its claim): nothing was changed
     */
    public boolean succeed(CacheKey key, long generation, StoredResponse response) {
        try (Connection connection = autocommitting()) {
            return succeed(connection, key, generation, response);
        } catch (SQLException e) {
            throw new IllegalStateException("could not record a keyed request's answer: " + e.getMessage(), e);
        }
    }

    /**
     * Records the handler's 2xx answer in the caller's transaction, the one the handler's effects joined: they
     * commit together. The row stays locked until that commit, so a concurrent claim waits for it and then
     * replays.
     *
     * @return false when a newer claim took the key: the caller must roll back
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean succeedWithin(CacheKey key, long generation, StoredResponse response) {
        try (Connection connection = dataSource.getConnection()) {
            return succeed(connection, key, generation, response);
        } catch (SQLException e) {
            throw new IllegalStateException("could not record a keyed request's answer: " + e.getMessage(), e);
        }
    }

    /**
     * Marks the request failed in the caller's transaction (its answer was not 2xx, and the handler's effects,
     * if any, commit with it).
     *
     * @return false when a newer claim took the key
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean failWithin(CacheKey key, long generation, int status) {
        try (Connection connection = dataSource.getConnection()) {
            return fail(connection, key, generation, status);
        } catch (SQLException e) {
            throw new IllegalStateException("could not record a keyed request's failure: " + e.getMessage(), e);
        }
    }

    /**
     * Extends a running request's claim by the claim timeout from now, if it still holds it.
     *
     * @return false when the request no longer holds the key (finalized, or taken by a newer claim)
     */
    public boolean renew(CacheKey key, long generation, Duration claimTimeout) {
        try (Connection connection = autocommitting();
                PreparedStatement renew = connection.prepareStatement(service.qualify(RENEW))) {
            renew.setLong(1, claimTimeout.toMillis());
            renew.setBytes(2, key.sha256());
            renew.setLong(3, generation);
            return renew.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException("could not renew an idempotency claim: " + e.getMessage(), e);
        }
    }

    private boolean succeed(Connection connection, CacheKey key, long generation, StoredResponse response)
            throws SQLException {
        JsonArrayBuilder headers = Json.createArrayBuilder();
        for (Map.Entry<String, String> header : response.headers()) {
            headers.add(Json.createArrayBuilder().add(header.getKey()).add(header.getValue()));
        }
        try (PreparedStatement succeed = connection.prepareStatement(service.qualify(SUCCEED))) {
            succeed.setInt(1, response.status());
            succeed.setString(2, headers.build().toString());
            succeed.setBytes(3, response.body());
            succeed.setBoolean(4, response.bodyOmitted());
            succeed.setBytes(5, key.sha256());
            succeed.setLong(6, generation);
            return succeed.executeUpdate() == 1;
        }
    }

    /**
     * Marks the request failed (its answer was not 2xx, or it threw before answering), so a retry with the key
     * runs again, if the request still holds its claim.
     *
     * @return false when a newer claim took the key: nothing was changed
     */
    public boolean fail(CacheKey key, long generation, int status) {
        try (Connection connection = autocommitting()) {
            return fail(connection, key, generation, status);
        } catch (SQLException e) {
            throw new IllegalStateException("could not record a keyed request's failure: " + e.getMessage(), e);
        }
    }

    private boolean fail(Connection connection, CacheKey key, long generation, int status) throws SQLException {
        try (PreparedStatement fail = connection.prepareStatement(service.qualify(FAIL))) {
            fail.setInt(1, status);
            fail.setBytes(2, key.sha256());
            fail.setLong(3, generation);
            return fail.executeUpdate() == 1;
        }
    }

    private Connection autocommitting() throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(true);
        return connection;
    }

    private static StoredResponse stored(ResultSet row) throws SQLException {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        try (var reader = Json.createReader(new StringReader(row.getString("response_headers")))) {
            for (JsonValue header : reader.readArray()) {
                JsonArray pair = header.asJsonArray();
                headers.add(Map.entry(pair.getString(0), pair.getString(1)));
            }
        }
        boolean omitted = row.getBoolean("body_omitted");
        return new StoredResponse(
                row.getInt("response_status"), headers, omitted ? null : row.getBytes("response_body"), omitted);
    }
}
