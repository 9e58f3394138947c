package dev.durability.incontainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import dev.durability.outbox.OutboxStager;
import jakarta.annotation.Resource;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.TransactionRequiredException;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

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

    /** Another data source of the server (the main application's), as a team's own business data source would be. */
    @Resource(lookup = "jdbc/durability")
    DataSource otherDataSource;

    @BeforeEach
    void freshOutbox() throws Exception {
        LibraryDeployment.freshOutbox(dataSource);
    }

    private void sql(String statement) throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private long rowsOf(UUID aggregate) throws Exception {
        return LibraryDeployment.count(dataSource, "aggregate_id = ?", aggregate);
    }

    @Test
    void stageWithoutATransactionFailsLoudlyAndWritesNothing() throws Exception {
        UUID aggregate = UUID.randomUUID();
        assertThatThrownBy(() -> stager.stage(
                        "order.placed", aggregate, Json.createObjectBuilder().build()))
                .isInstanceOf(TransactionRequiredException.class)
                .hasMessageContaining("needs an active JTA transaction");
        assertThat(rowsOf(aggregate)).isZero();
    }

    @Test
    void aBusinessMethodThatStagesAndCommitsLeavesOnePendingRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        UUID id = service.place(aggregate);
        assertThat(LibraryDeployment.count(
                        dataSource, "id = ? AND aggregate_id = ? AND published_at IS NULL", id, aggregate))
                .isEqualTo(1);
    }

    @Test
    void aBusinessMethodThatStagesThenThrowsLeavesNoRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        assertThatThrownBy(() -> service.placeThenFail(aggregate))
                .isInstanceOf(EJBException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(rowsOf(aggregate)).isZero();
    }

    @Test
    void stageInARolledBackTransactionLeavesNoRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        stager.stage(
                "order.placed",
                aggregate,
                Json.createObjectBuilder().add("n", 1).build());
        transaction.rollback();
        assertThat(rowsOf(aggregate)).isZero();
    }

    @Test
    void stageInACommittedTransactionWritesOnePendingRow() throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        UUID id = stager.stage(
                "order.placed",
                aggregate,
                Json.createObjectBuilder().add("n", 1).build());
        transaction.commit();
        assertThat(id.version()).isEqualTo(7);
        assertThat(LibraryDeployment.count(
                        dataSource,
                        "id = ? AND aggregate_id = ? AND event_type = 'order.placed'"
                                + " AND published_at IS NULL AND attempts = 0 AND envelope ->> 'id' = ?"
                                + " AND envelope ->> 'source_service' = 'orders' AND envelope -> 'payload' ->> 'n' = '1'",
                        id,
                        aggregate,
                        id.toString()))
                .isEqualTo(1);
    }

    @Test
    void tenThousandEventsStagedAsOneCollectionCommitWithTheirTransaction() throws Exception {
        UUID aggregate = UUID.randomUUID();
        List<EventEnvelope> envelopes = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            envelopes.add(stager.envelope(
                    "order.placed",
                    aggregate,
                    Json.createObjectBuilder().add("n", i).build()));
        }
        // Counts the INSERT statements that reach the table: one JDBC batch arrives as a few multi-row
        // statements, not one statement (and round trip) per event.
        sql("CREATE TABLE IF NOT EXISTS " + LibraryDeployment.SCHEMA + ".insert_statements (n bigint NOT NULL)");
        sql("DELETE FROM " + LibraryDeployment.SCHEMA + ".insert_statements");
        sql("CREATE OR REPLACE FUNCTION " + LibraryDeployment.SCHEMA + ".count_insert_statement() RETURNS trigger"
                + " LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + LibraryDeployment.SCHEMA
                + ".insert_statements VALUES (1); RETURN NULL; END $$");
        sql("CREATE OR REPLACE TRIGGER count_insert_statements AFTER INSERT ON " + LibraryDeployment.SCHEMA
                + ".event_outbox FOR EACH STATEMENT EXECUTE FUNCTION " + LibraryDeployment.SCHEMA
                + ".count_insert_statement()");
        try {
            transaction.begin();
            List<UUID> ids = stager.stage(envelopes);
            transaction.commit();
            assertThat(ids)
                    .hasSize(10_000)
                    .doesNotHaveDuplicates()
                    .isEqualTo(envelopes.stream().map(EventEnvelope::id).toList());
            assertThat(rowsOf(aggregate)).isEqualTo(10_000);
            assertThat(LibraryDeployment.countRows(dataSource, "insert_statements"))
                    .as("INSERT statements for 10,000 events")
                    .isLessThan(100);
        } finally {
            sql("DROP TRIGGER count_insert_statements ON " + LibraryDeployment.SCHEMA + ".event_outbox");
        }
    }

    @Test
    void aCollectionWithOneEnvelopeOverTheLimitIsRefusedWholeAtTheCall() throws Exception {
        UUID aggregate = UUID.randomUUID();
        List<EventEnvelope> envelopes = List.of(
                stager.envelope(
                        "order.placed",
                        aggregate,
                        Json.createObjectBuilder().add("n", 1).build()),
                stager.envelope(
                        "order.placed",
                        aggregate,
                        Json.createObjectBuilder()
                                .add("blob", "x".repeat(2 * 1024 * 1024))
                                .build()));
        assertRefusedAtTheCall(() -> stager.stage(envelopes), "durability.outbox.max-envelope-bytes");
        assertThat(rowsOf(aggregate)).isZero();
    }

    @Test
    void stageRefusesAnEnvelopeOverTheSizeLimitAtTheCall() throws Exception {
        String twoMebibytes = "x".repeat(2 * 1024 * 1024);
        assertRefusedAtTheCall(
                "order.placed",
                Json.createObjectBuilder().add("blob", twoMebibytes).build(),
                "durability.outbox.max-envelope-bytes");
    }

    @Test
    void stageRefusesAnInvalidEventTypeAtTheCall() throws Exception {
        assertRefusedAtTheCall("Order Placed", Json.createObjectBuilder().build(), "event_type");
    }

    @Test
    void stageRefusesANulCharacterAtTheCallInsteadOfFailingInTheDatabase() throws Exception {
        assertRefusedAtTheCall(
                "order.placed",
                Json.createObjectBuilder()
                        .add(
                                "items",
                                Json.createArrayBuilder()
                                        .add(Json.createObjectBuilder().add("name", "a\u0000b")))
                        .build(),
                "NUL");
        assertRefusedAtTheCall(
                "order.placed", Json.createObjectBuilder().add("key\u0000", 1).build(), "NUL");
    }

    @Test
    void stagingInATransactionThatAlreadyWroteThroughAnotherDataSourceIsRefusedClearly() throws Exception {
        UUID aggregate = UUID.randomUUID();
        transaction.begin();
        try (Connection business = otherDataSource.getConnection();
                Statement s = business.createStatement()) {
            s.execute("SELECT 1");
            assertThatThrownBy(() -> stager.stage(
                            "order.placed",
                            aggregate,
                            Json.createObjectBuilder().build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("jdbc/durability")
                    .hasMessageContaining("non-XA");
        } finally {
            transaction.rollback();
        }
        assertThat(rowsOf(aggregate)).isZero();
    }

    /** Inside a live transaction, stage throws at once, naming the problem, and nothing is written. */
    private void assertRefusedAtTheCall(String eventType, JsonObject payload, String named) throws Exception {
        UUID aggregate = UUID.randomUUID();
        assertRefusedAtTheCall(() -> stager.stage(eventType, aggregate, payload), named);
        assertThat(rowsOf(aggregate)).isZero();
    }

    private void assertRefusedAtTheCall(ThrowableAssert.ThrowingCallable call, String named) throws Exception {
        transaction.begin();
        try {
            assertThatThrownBy(call)
                    .isInstanceOf(InvalidEnvelopeException.class)
                    .hasMessageContaining(named);
        } finally {
            transaction.rollback();
        }
    }
}
