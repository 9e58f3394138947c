package dev.durability.incontainer;

import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.outbox.boundary.OutboxStager;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.TransactionRequiredException;
import jakarta.transaction.UserTransaction;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.sql.DataSource;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** OutboxStager inside the container: it joins the caller's JTA transaction and refuses to run without one. */
@ExtendWith(ArquillianExtension.class)
class OutboxStagerIT {

    @Deployment
    static WebArchive deployment() {
        return LibraryDeployment.create("outbox-stager-it", OutboxStagerIT.class, OrderLikeService.class);
    }

    @Inject
    OutboxStager stager;

    @Inject
    UserTransaction transaction;

    @Inject
    OrderLikeService service;

    @Resource(lookup = LibraryDeployment.DATA_SOURCE)
    DataSource dataSource;

    @BeforeEach
    void freshOutbox() throws Exception {
        LibraryDeployment.freshOutbox(dataSource);
    }

    private long rowsOf(UUID aggregate) throws Exception {
        return LibraryDeployment.count(dataSource, "aggregate_id = '" + aggregate + "'");
    }

    @Test
    void stageWithoutATransactionFailsLoudlyAndWritesNothing() throws Exception {
        UUID aggregate = UUID.randomUUID();
        TransactionRequiredException refused = assertThrows(TransactionRequiredException.class,
                () -> stager.stage("order.placed", aggregate, Json.createObjectBuilder().build()));
        assertTrue(refused.getMessage().contains("needs an active JTA transaction"), refused.getMessage());
        assertEquals(0, rowsOf(aggregate));
    }

    @Test
    void aBusinessMethodThatStagesAndCommitsLeavesOnePendingRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        UUID id = service.place(aggregate);
        assertEquals(1, LibraryDeployment.count(dataSource, "id = '" + id + "' AND aggregate_id = '" + aggregate
                + "' AND published_at IS NULL"));
    }

    @Test
    void aBusinessMethodThatStagesThenThrowsLeavesNoRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        jakarta.ejb.EJBException failed = assertThrows(jakarta.ejb.EJBException.class,
                () -> service.placeThenFail(aggregate));
        assertTrue(failed.getCause() instanceof IllegalStateException, String.valueOf(failed.getCause()));
        assertEquals(0, rowsOf(aggregate));
    }

    @Test
    void stageInARolledBackTransactionLeavesNoRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        stager.stage("order.placed", aggregate, Json.createObjectBuilder().add("n", 1).build());
        transaction.rollback();
        assertEquals(0, rowsOf(aggregate));
    }

    @Test
    void stageInACommittedTransactionWritesOnePendingRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        UUID id = stager.stage("order.placed", aggregate, Json.createObjectBuilder().add("n", 1).build());
        transaction.commit();
        assertEquals(7, id.version());
        assertEquals(1, LibraryDeployment.count(dataSource, "id = '" + id + "' AND aggregate_id = '" + aggregate
                + "' AND event_type = 'order.placed' AND published_at IS NULL AND attempts = 0"
                + " AND envelope ->> 'id' = '" + id + "' AND envelope ->> 'source_service' = 'orders'"
                + " AND envelope -> 'payload' ->> 'n' = '1'"));
    }

    @Test
    void stageRefusesAnEnvelopeOverTheSizeLimitAtTheCall() throws Exception {
        String twoMebibytes = "x".repeat(2 * 1024 * 1024);
        assertRefusedAtTheCall("order.placed", Json.createObjectBuilder().add("blob", twoMebibytes).build(),
                "durability.outbox.max-envelope-bytes");
    }

    @Test
    void stageRefusesAnInvalidEventTypeAtTheCall() throws Exception {
        assertRefusedAtTheCall("Order Placed", Json.createObjectBuilder().build(), "event_type");
    }

    /** Inside a live transaction, stage throws at once, naming the problem, and nothing is written. */
    private void assertRefusedAtTheCall(String eventType, JsonObject payload, String named) throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        try {
            InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                    () -> stager.stage(eventType, aggregate, payload));
            assertTrue(refused.getMessage().contains(named), refused.getMessage());
        } finally {
            transaction.rollback();
        }
        assertEquals(0, rowsOf(aggregate));
    }
}
