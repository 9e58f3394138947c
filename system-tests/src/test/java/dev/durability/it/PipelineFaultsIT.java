package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fault suite: orders placed with idempotency keys through the demo API (order → outbox → broker →
 * shipments consumer → inbox) while something breaks underneath, each scenario ending with an accounting
 * ({@link FaultAccounting}): nothing lost, no order created twice for one request, no order shipped twice,
 * every duplicate delivery explained, every poison message recorded once. The load lasts
 * {@code FAULT_LOAD_SECONDS} (12 in the build; system-tests/fault-suite runs it longer and writes
 * docs/reliability.md).
 */
class PipelineFaultsIT {
    private static final Duration LOAD =
            Duration.ofSeconds(Long.parseLong(Coordinates.env("FAULT_LOAD_SECONDS", "12")));
    private static final int CLIENTS = 4;
    /** Long enough for the main server to recover a killed server's claims (its lease) and redeliveries. */
    private static final Duration PATIENCE = Duration.ofSeconds(180);

    @FunctionalInterface
    interface Fault {
        /** @param tag the scenario's tag, which its customers (and any poison it injects) carry */
        void strike(String tag) throws Exception;
    }

    @Test
    void rabbitmqRestartedMidDrainAndMidConsume() throws Exception {
        FaultAccounting accounting = run(
                "rabbitmq restarted",
                List.of(Coordinates.mainServer()),
                0,
                tag -> downFor3Seconds(Rabbitmq::stopApp, Rabbitmq::startApp));
        assertHoldsTheContract(accounting);
    }

    @Test
    void postgresqlRestartedMidDrainAndMidConsume() throws Exception {
        FaultAccounting accounting = run(
                "postgresql restarted",
                List.of(Coordinates.mainServer()),
                0,
                tag -> downFor3Seconds(Postgresql::stop, Postgresql::start));
        assertHoldsTheContract(accounting);
    }

    @Test
    void aServerKilledMidDrainMidConsumeAndMidRequestWhileASecondRuns() throws Exception {
        try (LibertyServer second =
                LibertyServer.copyOfMain("durability-fault", 9194, Map.of("DURABILITY_INSTANCE_NAME", "it-fault"))) {
            second.start();
            second.awaitApplicationStarted();
            FaultAccounting accounting = run(
                    "server killed (kill -9), second server running",
                    List.of(second.uri(), Coordinates.mainServer()),
                    0,
                    tag -> second.kill());
            assertHoldsTheContract(accounting);
        }
    }

    @Test
    void aThousandMalformedMessagesAmongGoodOnesAreEachDeadLetteredOnce() throws Exception {
        int poison = 1_000;
        FaultAccounting accounting = run(
                "1,000 malformed messages in the shipments queue", List.of(Coordinates.mainServer()), poison, tag -> {
                    try (Amqp amqp = new Amqp()) {
                        for (int i = 0; i < poison; i++) {
                            byte[] body = (i % 2 == 0
                                            ? tag + "-poison-" + i + " {not json"
                                            : "{\"id\":\"" + tag + "-poison-" + i
                                                    + "\",\"event_type\":\"order.placed\"}")
                                    .getBytes(StandardCharsets.UTF_8);
                            amqp.toQueue("orders.shipments", body);
                        }
                    }
                });
        assertHoldsTheContract(accounting);
    }

    private static FaultAccounting run(String scenario, List<URI> servers, long poison, Fault fault) throws Exception {
        Pipeline.awaitQuiet();
        String tag = "fault-" + Long.toHexString(System.nanoTime());
        double recoveriesBefore = leaseRecoveries();
        try (EventQueue placed = new EventQueue("order.placed");
                OrderLoad load = new OrderLoad(tag, servers, CLIENTS)) {
            Thread.sleep(LOAD.toMillis() / 3);
            fault.strike(tag);
            Thread.sleep(LOAD.toMillis() * 2 / 3);
            load.stop(Duration.ofSeconds(60));
            assertThat(load.refusals())
                    .as("answers a careful client could not retry")
                    .isEmpty();
            return FaultAccounting.settle(
                    scenario, load, placed, poison, () -> leaseRecoveries() - recoveriesBefore, PATIENCE);
        }
    }

    /** Stops a service for three seconds under the load, and starts it again whatever happens. */
    private static void downFor3Seconds(Runnable stop, Runnable start) throws InterruptedException {
        stop.run();
        try {
            Thread.sleep(3_000);
        } finally {
            start.run();
        }
    }

    private static double leaseRecoveries() {
        return Http.metric(Coordinates.mainServer(), "durability_outbox_lease_recoveries_total");
    }

    private static void assertHoldsTheContract(FaultAccounting a) {
        assertThat(a.accepted()).as("orders accepted under the fault: %s", a).isPositive();
        assertThat(a.lost()).as("lost: %s", a).isZero();
        assertThat(a.ordersTwice())
                .as("requests that created a second order: %s", a)
                .isZero();
        assertThat(a.shippedTwice()).as("orders shipped twice: %s", a).isZero();
        assertThat(a.orders())
                .as("orders = accepted + unknown ones that were placed: %s", a)
                .isEqualTo(a.accepted() + a.unknownPlaced());
        assertThat(a.shipments()).as("one shipment per order: %s", a).isEqualTo(a.orders());
        assertThat(a.staged()).as("one order.placed per order: %s", a).isEqualTo(a.orders());
        assertThat(a.duplicates())
                .as(
                        "duplicate deliveries, each a publication the outbox counted (failed attempt, lease recovery): %s",
                        a)
                .isLessThanOrEqualTo(a.explainable());
        assertThat(a.deadLetters()).as("poison recorded once each: %s", a).isEqualTo(a.poison());
    }
}
