package dev.durability.incontainer;

import dev.durability.outbox.boundary.OutboxStager;
import dev.durability.outbox.control.Claim;
import dev.durability.outbox.control.ClaimedEvent;
import dev.durability.outbox.control.OutboxClaims;
import dev.durability.outbox.control.PublishOutcome;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.transaction.UserTransaction;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.naming.InitialContext;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The drain's claim, stamp and release statements inside the container, on the real table: SKIP LOCKED
 * claims, lease expiry, fencing on the claim token, and backoff on the database clock.
 */
@ExtendWith(ArquillianExtension.class)
class OutboxClaimsIT {
    private static final String TABLE = LibraryDeployment.SCHEMA + ".event_outbox";

    @Deployment
    static WebArchive deployment() {
        return LibraryDeployment.create("outbox-claims-it", OutboxClaimsIT.class);
    }

    @Inject
    OutboxClaims claims;

    @Inject
    OutboxStager stager;

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
        return inTransaction(() -> {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add(stager.stage("claims.tested", UUID.randomUUID(), Json.createObjectBuilder().add("n", i).build()));
            }
            return ids;
        });
    }

    private void sql(String statement) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    /** The database's clock, in epoch seconds: backoff is computed on it, so it is measured on it. */
    private double databaseNow() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT EXTRACT(EPOCH FROM clock_timestamp())")) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    private double nextAttemptAt(UUID id) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT EXTRACT(EPOCH FROM next_attempt_at) FROM " + TABLE
                     + " WHERE id = '" + id + "'")) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    /** Fails the claimed row and checks its next attempt lies within [min, max] seconds of the stamp, on the database clock. */
    private void failAndExpectBackoff(UUID id, Claim claim, double min, double max) throws Exception {
        double before = databaseNow();
        inTransaction(() -> claims.stamp(claim.token(), List.of(PublishOutcome.failed(id, "broker unreachable"))));
        double after = databaseNow();
        double next = nextAttemptAt(id);
        assertTrue(next >= before + min && next <= after + max,
                "next attempt " + (next - before) + " s after the stamp began, expected " + min + ".." + max + " s");
    }

    private long count(String where) throws Exception {
        return LibraryDeployment.count(dataSource, where);
    }

    @Test
    void claimsFollowCreationTimeNotIdOrder() throws Exception {
        List<UUID> staged = stage(3);
        // Created in the reverse of their id order, as envelopes built before staging can be.
        sql("UPDATE " + TABLE + " SET created_at = created_at - make_interval(secs => ord) FROM (SELECT id AS oid,"
                + " row_number() OVER (ORDER BY id) AS ord FROM " + TABLE + ") o WHERE id = o.oid");
        Claim claim = inTransaction(claims::claim);
        assertEquals(List.of(staged.get(2), staged.get(1), staged.get(0)),
                claim.events().stream().map(ClaimedEvent::id).toList());
    }

    @Test
    void aConcurrentClaimSkipsRowsAnotherWorkerHasLockedInsteadOfWaiting() throws Exception {
        stage(150);
        transaction.begin();
        try {
            Claim held = claims.claim(); // locked until this transaction ends
            Future<Claim> concurrent = executor.submit(() -> inTransaction(
                    InitialContext.<UserTransaction>doLookup("java:comp/UserTransaction"), claims::claim));
            // Without SKIP LOCKED the second claim would block on the held rows until this transaction ends.
            Claim other = concurrent.get(20, TimeUnit.SECONDS);
            assertEquals(100, held.size());
            assertEquals(50, other.size());
            Set<UUID> heldIds = new HashSet<>(held.events().stream().map(ClaimedEvent::id).toList());
            other.events().forEach(e -> assertFalse(heldIds.contains(e.id()), "claimed by both: " + e.id()));
        } finally {
            transaction.commit();
        }
    }

    @Test
    void claimsTakeDueRowsOldestFirstUpToTheBatchAndNeverTheSameRowTwice() throws Exception {
        List<UUID> staged = stage(150);
        Claim first = inTransaction(claims::claim);
        Claim second = inTransaction(claims::claim);
        Claim third = inTransaction(claims::claim);

        assertEquals(100, first.size(), "the default batch size");
        assertEquals(staged.subList(0, 100), first.events().stream().map(ClaimedEvent::id).toList());
        assertEquals(50, second.size());
        assertEquals(0, third.size(), "claimed rows are not due again before their lease expires");
        assertNotEquals(first.token(), second.token());
        Set<UUID> all = new HashSet<>();
        first.events().forEach(e -> all.add(e.id()));
        second.events().forEach(e -> assertTrue(all.add(e.id()), "claimed twice: " + e.id()));
        assertEquals(0, first.recovered());
        assertEquals(150, count("claimed_at IS NOT NULL AND claim_token IS NOT NULL AND claimed_by IS NOT NULL"));
    }

    @Test
    void aStaleWorkersStampChangesNothingAfterItsLeaseWasTakenOver() throws Exception {
        UUID id = stage(1).get(0);
        Claim stale = inTransaction(claims::claim);
        // The first worker stalls past its lease (60 s by default): its claim is now older than the lease.
        sql("UPDATE " + TABLE + " SET claimed_at = claimed_at - interval '61 seconds'");
        Claim fresh = inTransaction(claims::claim);
        assertEquals(1, fresh.size());
        assertEquals(1, fresh.recovered(), "an expired claim is reported as a lease recovery");

        List<Double> staleLags = inTransaction(() -> claims.stamp(stale.token(), List.of(PublishOutcome.confirmed(id))));
        assertTrue(staleLags.isEmpty());
        inTransaction(() -> claims.stamp(stale.token(), List.of(PublishOutcome.failed(id, "stale failure"))));
        assertEquals(1, count("id = '" + id + "' AND published_at IS NULL AND attempts = 0 AND last_error IS NULL"
                + " AND claim_token = '" + fresh.token() + "'"), "the stale worker changed the row");

        List<Double> lags = inTransaction(() -> claims.stamp(fresh.token(), List.of(PublishOutcome.confirmed(id))));
        assertEquals(1, lags.size());
        assertTrue(lags.get(0) >= 0);
        assertEquals(1, count("id = '" + id + "' AND published_at IS NOT NULL AND published_at >= created_at"));
    }

    @Test
    void aFailedPublishReleasesTheClaimWithJitteredExponentialBackoffCappedAtSixtySeconds() throws Exception {
        UUID id = stage(1).get(0);
        failAndExpectBackoff(id, inTransaction(claims::claim), 0.5, 1.0);
        assertEquals(1, count("id = '" + id + "' AND attempts = 1 AND last_error = 'broker unreachable'"
                + " AND claimed_at IS NULL AND claim_token IS NULL AND published_at IS NULL"));

        sql("UPDATE " + TABLE + " SET attempts = 3, next_attempt_at = NULL");
        failAndExpectBackoff(id, inTransaction(claims::claim), 4.0, 8.0); // 1 s doubled three times, jittered
        assertEquals(0, inTransaction(claims::claim).size(), "not due before its backoff elapsed");

        sql("UPDATE " + TABLE + " SET attempts = 40, next_attempt_at = NULL");
        failAndExpectBackoff(id, inTransaction(claims::claim), 30.0, 60.0); // capped at 60 s, jittered
    }

    @Test
    void anUnroutableMessageIsStampedPublishedWithTheReasonAndIsNotClaimedAgain() throws Exception {
        UUID id = stage(1).get(0);
        Claim claim = inTransaction(claims::claim);
        List<Double> lags = inTransaction(() -> claims.stamp(claim.token(),
                List.of(PublishOutcome.unroutable(id, "unroutable: 312 NO_ROUTE"))));
        assertTrue(lags.isEmpty(), "an unroutable message is not counted as a delivery");
        assertEquals(1, count("id = '" + id + "' AND published_at IS NOT NULL AND last_error = 'unroutable: 312 NO_ROUTE'"));
        assertFalse(inTransaction(claims::claim).events().stream().anyMatch(e -> e.id().equals(id)));
    }

    @Test
    void publishedRowsStayOutOfLaterClaimsAndPendingRowsStayHoweverOld() throws Exception {
        List<UUID> ids = stage(2);
        sql("UPDATE " + TABLE + " SET created_at = created_at - interval '400 days'");
        Claim claim = inTransaction(claims::claim);
        assertEquals(2, claim.size(), "an old pending row is still claimed");
        inTransaction(() -> claims.stamp(claim.token(), List.of(PublishOutcome.confirmed(ids.get(0)),
                PublishOutcome.failed(ids.get(1), "nacked by the broker"))));
        sql("UPDATE " + TABLE + " SET next_attempt_at = now() - interval '1 second'");
        Claim again = inTransaction(claims::claim);
        assertEquals(List.of(ids.get(1)), again.events().stream().map(ClaimedEvent::id).toList());
    }
}
