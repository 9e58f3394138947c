package dev.durability.incontainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.outbox.OutboxStager;
import dev.durability.outbox.control.Claim;
import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.control.PublishOutcome;
import dev.durability.outbox.entity.ClaimedRow;
import dev.durability.outbox.entity.OutboxStatus;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The drain's claim, stamp and release statements inside the container, on the real table: SKIP LOCKED
 * claims under a lease, the byte bound, fencing of a stale worker, backoff and the unroutable state,
 * all on the database clock.
 */
@ExtendWith(ArquillianExtension.class)
class OutboxClaimsIT {
    private static final String TABLE = LibraryDeployment.SCHEMA + ".event_outbox";

    @Deployment
    static WebArchive deployment() {
        return LibraryDeployment.create("outbox-claims-it", OutboxClaimsIT.class, OutboxStatusReader.class);
    }

    @Inject
    OutboxClaims claims;

    @Inject
    OutboxStatusReader statusReader;

    @Inject
    OutboxStager stager;

    @Inject
    OutboxConfig config;

    @Inject
    UserTransaction transaction;

    @Resource(lookup = LibraryDeployment.DATA_SOURCE)
    DataSource dataSource;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    @BeforeEach
    void freshOutbox() throws Exception {
        LibraryDeployment.freshOutbox(dataSource);
    }

    private <T> T inTransaction(Callable<T> work) throws Exception {
        return inTransaction(transaction, work);
    }

    @Test
    void aClaimRewritesItsRowsOnTheirOwnPagesWithoutNewIndexEntries() throws Exception {
        // Empty pages, as a new day's partition has: the earlier tests' deleted rows would leave room of their own.
        sql("TRUNCATE " + TABLE);
        stage(50);

        long[] counts = inTransaction(() -> {
            // The backend's statistics not yet reported, on the connection of the transaction the claim runs in:
            // what they gained across the claim is the claim's.
            long[] before = updates();
            int claimed = claims.claim().size();
            long[] after = updates();
            return new long[] {claimed, after[0] - before[0], after[1] - before[1]};
        });

        assertThat(counts[0]).as("rows claimed").isEqualTo(50);
        assertThat(counts[1])
                .as("rows the claim updated, seen in its transaction")
                .isEqualTo(50);
        assertThat(counts[2])
                .as("of them, updated on their page without index entries (HOT): room was left for them"
                        + " (docs/decisions/0097-outbox-claims-stay-on-their-page.md)")
                .isEqualTo(50);
    }

    /** Rows of the outbox's partitions this backend updated, and of them HOT, as its statistics not yet reported count them. */
    private long[] updates() throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT sum(pg_stat_get_xact_tuples_updated(inhrelid)),"
                        + " sum(pg_stat_get_xact_tuples_hot_updated(inhrelid)) FROM pg_inherits"
                        + " WHERE inhparent = CAST('" + TABLE + "' AS regclass)")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    private static <T> T inTransaction(UserTransaction transaction, Callable<T> work) throws Exception {
        transaction.begin();
        try {
            T result = work.call();
            transaction.commit();
            return result;
        } catch (Exception e) {
            transaction.rollback();
            throw e;
        }
    }

    private List<UUID> stage(int count) throws Exception {
        return stage(count, "");
    }

    /** Stages events whose payload carries this filler, so their size is under the test's control. */
    private List<UUID> stage(int count, String filler) throws Exception {
        return inTransaction(() -> {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add(stager.stage(
                        "claims.tested",
                        UUID.randomUUID(),
                        Json.createObjectBuilder()
                                .add("n", i)
                                .add("filler", filler)
                                .build()));
            }
            return ids;
        });
    }

    private void sql(String statement, Object... parameters) throws Exception {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(statement)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            s.execute();
        }
    }

    /** The database's clock, in epoch seconds: backoff is computed on it, so it is measured on it. */
    private double databaseNow() throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT EXTRACT(EPOCH FROM clock_timestamp())")) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    private double nextAttemptAt(UUID id) throws Exception {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT EXTRACT(EPOCH FROM next_attempt_at) FROM " + TABLE + " WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getDouble(1);
            }
        }
    }

    /** Fails the claimed row and checks its next attempt lies within [min, max] seconds of the stamp, on the database clock. */
    private void failAndExpectBackoff(UUID id, Claim claim, double min, double max) throws Exception {
        double before = databaseNow();
        inTransaction(() -> claims.stamp(claim.token(), List.of(PublishOutcome.failed(id, "broker unreachable"))));
        double after = databaseNow();
        double next = nextAttemptAt(id);
        assertThat(next).as("next attempt, seconds after the stamp began").isBetween(before + min, after + max);
    }

    private long count(String where, Object... parameters) throws Exception {
        return LibraryDeployment.count(dataSource, where, parameters);
    }

    private static List<UUID> ids(Claim claim) {
        return claim.rows().stream().map(ClaimedRow::id).toList();
    }

    @Test
    void theStatusQueryStopsCountingAtItsCap() throws Exception {
        stage(30);
        sql("UPDATE " + TABLE + " SET attempts = 1, created_at = created_at - interval '1 hour'");
        OutboxStatus capped = statusReader.status(60, 10);
        assertThat(capped.depth())
                .as("a scrape reads at most the cap, however many rows are pending")
                .isEqualTo(10);
        assertThat(capped.withErrors()).isEqualTo(10);
        assertThat(capped.beyondGrace()).isEqualTo(10);
        assertThat(capped.oldestPendingSeconds()).isGreaterThan(3_500);
        OutboxStatus exact = statusReader.status(60, 100_000);
        assertThat(exact.depth()).isEqualTo(30);
    }

    /**
     * The session's enable_bitmapscan, idle_in_transaction_session_timeout and statement_timeout (in ms) and jit,
     * by name, as the connection in use sees them.
     */
    private List<String> claimSettings() throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT setting FROM pg_settings"
                        + " WHERE name IN ('enable_bitmapscan', 'idle_in_transaction_session_timeout', 'jit',"
                        + " 'statement_timeout') ORDER BY name")) {
            List<String> settings = new ArrayList<>();
            while (rs.next()) {
                settings.add(rs.getString(1));
            }
            return settings;
        }
    }

    @Test
    void aClaimTransactionIsBoundedAndScansTheQueueInOrderUntilItEnds() throws Exception {
        stage(1);
        List<String> before = inTransaction(this::claimSettings);
        List<String> during = inTransaction(() -> {
            claims.claim();
            return claimSettings();
        });
        assertThat(during)
                .as("the claim's statements and idle time are bounded, and neither bitmap scans nor JIT compilation"
                        + " are planned")
                .containsExactly(
                        "off",
                        Long.toString(config.statementTimeoutMillis()),
                        "off",
                        Long.toString(config.statementTimeoutMillis()));
        assertThat(before)
                .as("the test's connection starts from other settings")
                .isNotEqualTo(during);
        assertThat(inTransaction(this::claimSettings))
                .as("the settings end with the claim transaction")
                .isEqualTo(before);
    }

    /**
     * A server that dies without closing its connection (host lost, frozen JVM) mid-claim: its transaction sits idle
     * holding the rows' locks. The database ends it after the statement bound, so the rows are free again within
     * seconds, not after the operating system's keepalive of hours.
     */
    @Test
    void aClaimTransactionLeftIdleIsEndedByTheDatabaseAndItsRowsAreFreeAgain() throws Exception {
        List<UUID> staged = stage(3);
        long idle = config.statementTimeoutMillis() + 1_000;
        assertThatThrownBy(() -> inTransaction(() -> {
                    assertThat(claims.claim().rows()).hasSize(3);
                    Thread.sleep(idle); // the claimer silent, its transaction open
                    return null;
                }))
                .as("the commit of a transaction the database ended")
                .isInstanceOf(Exception.class);
        assertThat(inTransaction(() -> claims.claim().rows()))
                .as("claimed again at once: the dead claim never committed and holds no lock")
                .extracting(ClaimedRow::id)
                .containsExactlyInAnyOrderElementsOf(staged);
    }

    @Test
    void claimsFollowCreationTimeNotIdOrder() throws Exception {
        List<UUID> staged = stage(3);
        // Created in the reverse of their id order, as envelopes built before staging can be.
        sql("UPDATE " + TABLE + " SET created_at = created_at - make_interval(secs => ord) FROM (SELECT id AS oid,"
                + " row_number() OVER (ORDER BY id) AS ord FROM " + TABLE + ") o WHERE id = o.oid");
        Claim claim = inTransaction(claims::claim);
        assertThat(ids(claim)).containsExactly(staged.get(2), staged.get(1), staged.get(0));
    }

    @Test
    void aConcurrentClaimSkipsRowsAnotherWorkerHasLockedInsteadOfWaiting() throws Exception {
        int batch = config.batchSize();
        stage(batch + 50);
        transaction.begin();
        try {
            Claim held = claims.claim(); // locked until this transaction ends
            Future<Claim> concurrent = executor.submit(() -> inTransaction(
                    InitialContext.<UserTransaction>doLookup("java:comp/UserTransaction"), claims::claim));
            // Without SKIP LOCKED the second claim would block on the held rows until this transaction ends.
            Claim other = concurrent.get(20, TimeUnit.SECONDS);
            assertThat(held.size()).isEqualTo(batch);
            assertThat(other.size()).isEqualTo(50);
            assertThat(ids(other)).doesNotContainAnyElementsOf(ids(held));
        } finally {
            transaction.commit();
        }
    }

    @Test
    void claimsTakeDueRowsOldestFirstUpToTheBatchAndNeverTheSameRowTwice() throws Exception {
        int batch = config.batchSize();
        List<UUID> staged = stage(batch + 50);
        Claim first = inTransaction(claims::claim);
        Claim second = inTransaction(claims::claim);
        Claim third = inTransaction(claims::claim);

        assertThat(ids(first)).as("the default batch size, oldest first").isEqualTo(staged.subList(0, batch));
        assertThat(first.moreDue(batch)).isTrue();
        assertThat(ids(second)).isEqualTo(staged.subList(batch, batch + 50));
        assertThat(second.moreDue(batch)).isFalse();
        assertThat(third.isEmpty())
                .as("claimed rows are not due again before their lease expires")
                .isTrue();
        assertThat(first.token()).isNotEqualTo(second.token());
        assertThat(first.recovered()).isZero();
        assertThat(count("claimed_at IS NOT NULL AND claim_token IS NOT NULL AND claimed_by IS NOT NULL"))
                .isEqualTo(batch + 50);
    }

    @Test
    void aClaimStopsAtTheByteBoundButAlwaysTakesItsFirstRow() throws Exception {
        // 20 envelopes of about 100 KiB; the default bound is 16 MiB, so lower it for this claim's table size:
        // the bound is a setting, so the test shrinks the rows' share of it instead, with big fillers.
        List<UUID> staged = stage(20, "x".repeat(1_000_000));
        Claim first = inTransaction(claims::claim);
        assertThat(first.size()).as("16 MiB holds 16 envelopes of 1 MB").isEqualTo(16);
        assertThat(ids(first)).isEqualTo(staged.subList(0, 16));
        assertThat(first.moreDue(config.batchSize()))
                .as("rows were left behind by the byte bound")
                .isTrue();
        Claim second = inTransaction(claims::claim);
        assertThat(ids(second)).isEqualTo(staged.subList(16, 20));
        assertThat(second.moreDue(config.batchSize())).isFalse();
        assertThat(first.rows().get(0).envelope()).contains("\"filler\"").hasSizeGreaterThan(1_000_000);
    }

    @Test
    void aClaimHoldsItsRowsForTheClaimersLeaseWhateverTheTakersLeaseIs() throws Exception {
        UUID id = stage(1).get(0);
        Claim held = inTransaction(claims::claim);
        assertThat(count(
                        "id = ? AND lease_until = claimed_at + make_interval(secs => CAST(? AS double precision))",
                        id,
                        config.leaseSeconds()))
                .as("the claim records its lease on the row")
                .isEqualTo(1);
        // Claimed by a server with a lease far longer than this one's: older than this server's lease, it is
        // still held.
        sql(
                "UPDATE " + TABLE + " SET claimed_at = claimed_at - make_interval(secs => CAST(? AS double precision)),"
                        + " lease_until = now() + interval '1 hour'",
                config.leaseSeconds() + 60);
        assertThat(inTransaction(claims::claim).isEmpty())
                .as("not taken over before the claimer's lease ended")
                .isTrue();
        // A row claimed by a server that recorded no lease (the release before) is held for this server's lease.
        sql(
                "UPDATE " + TABLE
                        + " SET lease_until = NULL, claimed_at = now() - make_interval(secs => CAST(? AS double precision))",
                config.leaseSeconds() - 5);
        assertThat(inTransaction(claims::claim).isEmpty())
                .as("within this server's lease")
                .isTrue();
        sql(
                "UPDATE " + TABLE + " SET claimed_at = now() - make_interval(secs => CAST(? AS double precision))",
                config.leaseSeconds() + 1);
        Claim recovered = inTransaction(claims::claim);
        assertThat(ids(recovered)).containsExactly(id);
        assertThat(recovered.recovered()).isEqualTo(1);
        assertThat(recovered.token()).isNotEqualTo(held.token());
    }

    @Test
    void aStaleWorkersStampChangesNothingAfterItsLeaseWasTakenOver() throws Exception {
        UUID id = stage(1).get(0);
        Claim stale = inTransaction(claims::claim);
        // The first worker stalls past its lease: its lease ended a second ago.
        sql(
                "UPDATE " + TABLE + " SET claimed_at = claimed_at - make_interval(secs => CAST(? AS double precision)),"
                        + " lease_until = lease_until - make_interval(secs => CAST(? AS double precision))",
                config.leaseSeconds() + 1,
                config.leaseSeconds() + 1);
        Claim fresh = inTransaction(claims::claim);
        assertThat(fresh.size()).isEqualTo(1);
        assertThat(fresh.recovered())
                .as("an expired claim is reported as a lease recovery")
                .isEqualTo(1);

        assertThat(inTransaction(() -> claims.stamp(stale.token(), List.of(PublishOutcome.confirmed(id)))))
                .isEmpty();
        inTransaction(() -> claims.stamp(stale.token(), List.of(PublishOutcome.failed(id, "stale failure"))));
        inTransaction(() -> claims.stamp(stale.token(), List.of(PublishOutcome.unroutable(id, "stale unroutable"))));
        assertThat(count(
                        "id = ? AND published_at IS NULL AND unroutable_at IS NULL AND attempts = 0"
                                + " AND last_error IS NULL AND claim_token = ?",
                        id,
                        fresh.token()))
                .as("the stale worker changed nothing")
                .isEqualTo(1);

        List<Double> lags = inTransaction(() -> claims.stamp(fresh.token(), List.of(PublishOutcome.confirmed(id))));
        assertThat(lags).singleElement().satisfies(lag -> assertThat(lag).isNotNegative());
        assertThat(count("id = ? AND published_at IS NOT NULL AND published_at >= created_at", id))
                .isEqualTo(1);
    }

    @Test
    void aFailedPublishReleasesTheClaimWithJitteredExponentialBackoffCappedAtSixtySeconds() throws Exception {
        UUID id = stage(1).get(0);
        failAndExpectBackoff(id, inTransaction(claims::claim), 0.5, 1.0);
        assertThat(count(
                        "id = ? AND attempts = 1 AND last_error = 'broker unreachable' AND last_attempt_at IS NOT NULL"
                                + " AND claimed_at IS NULL AND claim_token IS NULL AND published_at IS NULL",
                        id))
                .isEqualTo(1);

        sql("UPDATE " + TABLE + " SET attempts = 3, next_attempt_at = NULL");
        failAndExpectBackoff(id, inTransaction(claims::claim), 4.0, 8.0); // 1 s doubled three times, jittered
        assertThat(inTransaction(claims::claim).isEmpty())
                .as("not due before its backoff elapsed")
                .isTrue();

        sql("UPDATE " + TABLE + " SET attempts = 40, next_attempt_at = NULL");
        failAndExpectBackoff(id, inTransaction(claims::claim), 30.0, 60.0); // capped at 60 s, jittered
    }

    @Test
    void aRejectedMessageIsReleasedWithBackoffLikeAFailedOne() throws Exception {
        UUID id = stage(1).get(0);
        Claim claim = inTransaction(claims::claim);
        inTransaction(() -> claims.stamp(claim.token(), List.of(PublishOutcome.rejected(id, "nacked by the broker"))));
        assertThat(count(
                        "id = ? AND attempts = 1 AND last_error = 'nacked by the broker' AND claim_token IS NULL"
                                + " AND next_attempt_at > now()",
                        id))
                .isEqualTo(1);
    }

    @Test
    void rowsHandedBackUnsentAreDueAgainAtOnceWithNoAttemptCounted() throws Exception {
        List<UUID> ids = stage(2);
        Claim claim = inTransaction(claims::claim);
        inTransaction(() -> claims.stamp(
                claim.token(),
                List.of(
                        PublishOutcome.confirmed(ids.get(0)),
                        PublishOutcome.held(ids.get(1), "broker blocked publishing: low on memory"))));
        assertThat(count(
                        "id = ? AND attempts = 0 AND last_error IS NULL AND claimed_at IS NULL AND claim_token IS NULL"
                                + " AND next_attempt_at IS NULL AND published_at IS NULL",
                        ids.get(1)))
                .isEqualTo(1);
        assertThat(ids(inTransaction(claims::claim))).containsExactly(ids.get(1));
    }

    @Test
    void anUnroutableMessageIsKeptApartNeitherPublishedNorClaimedAgain() throws Exception {
        UUID id = stage(1).get(0);
        Claim claim = inTransaction(claims::claim);
        List<Double> lags = inTransaction(
                () -> claims.stamp(claim.token(), List.of(PublishOutcome.unroutable(id, "unroutable: 312 NO_ROUTE"))));
        assertThat(lags)
                .as("an unroutable message is not counted as a delivery")
                .isEmpty();
        assertThat(count(
                        "id = ? AND published_at IS NULL AND unroutable_at IS NOT NULL"
                                + " AND last_error = 'unroutable: 312 NO_ROUTE'",
                        id))
                .isEqualTo(1);
        sql("UPDATE " + TABLE
                + " SET claimed_at = claimed_at - interval '1 day', lease_until = lease_until - interval '1 day'");
        assertThat(inTransaction(claims::claim).isEmpty())
                .as("never claimed again, even after the lease")
                .isTrue();
    }

    @Test
    void aCleanPublishClearsTheErrorOfAnEarlierAttempt() throws Exception {
        UUID id = stage(1).get(0);
        Claim first = inTransaction(claims::claim);
        inTransaction(() -> claims.stamp(first.token(), List.of(PublishOutcome.failed(id, "broker unreachable"))));
        sql("UPDATE " + TABLE + " SET next_attempt_at = now() - interval '1 second'");
        Claim second = inTransaction(claims::claim);
        inTransaction(() -> claims.stamp(second.token(), List.of(PublishOutcome.confirmed(id))));
        assertThat(count("id = ? AND published_at IS NOT NULL AND last_error IS NULL AND attempts = 1", id))
                .isEqualTo(1);
    }

    @Test
    void rowsInBackoffAreNeverClaimedAndDueRowsComeInTheOrderTheyFellDue() throws Exception {
        List<UUID> ids = stage(4);
        UUID waiting = ids.get(0);
        UUID retried = ids.get(1);
        UUID older = ids.get(2);
        UUID fresh = ids.get(3);
        sql(
                "UPDATE " + TABLE + " SET attempts = 1, created_at = now() - interval '1 hour',"
                        + " next_attempt_at = now() + interval '1 hour' WHERE id = ?",
                waiting);
        sql(
                "UPDATE " + TABLE + " SET attempts = 1, created_at = now() - interval '1 hour',"
                        + " next_attempt_at = now() - interval '1 minute' WHERE id = ?",
                retried);
        sql("UPDATE " + TABLE + " SET created_at = now() - interval '2 minutes' WHERE id = ?", older);
        Claim claim = inTransaction(claims::claim);
        assertThat(claim.rows())
                .extracting(ClaimedRow::id)
                .as("staged 2 minutes ago, retry due 1 minute ago, staged now; the row in backoff left alone")
                .containsExactly(older, retried, fresh);
    }

    @Test
    void aStampSurvivesADatabaseClockThatSteppedBackSinceStaging() throws Exception {
        UUID id = stage(1).get(0);
        // As if the row had been staged before the database clock was stepped back by a minute.
        sql("UPDATE " + TABLE + " SET created_at = now() + interval '1 minute' WHERE id = ?", id);
        Claim claim = inTransaction(claims::claim);
        assertThat(inTransaction(() -> claims.stamp(claim.token(), List.of(PublishOutcome.confirmed(id)))))
                .hasSize(1);
        assertThat(count("id = ? AND published_at = created_at", id)).isEqualTo(1);
    }

    @Test
    void publishedRowsStayOutOfLaterClaimsAndPendingRowsStayHoweverOld() throws Exception {
        List<UUID> ids = stage(2);
        sql("UPDATE " + TABLE + " SET created_at = created_at - interval '400 days'");
        Claim claim = inTransaction(claims::claim);
        assertThat(claim.size()).as("an old pending row is still claimed").isEqualTo(2);
        inTransaction(() -> claims.stamp(
                claim.token(),
                List.of(
                        PublishOutcome.confirmed(ids.get(0)),
                        PublishOutcome.rejected(ids.get(1), "nacked by the broker"))));
        sql("UPDATE " + TABLE + " SET next_attempt_at = now() - interval '1 second'");
        assertThat(ids(inTransaction(claims::claim))).containsExactly(ids.get(1));
    }
}
