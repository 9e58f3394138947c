package dev.durability.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Idempotency records live in the database, not in a server: a retry that reaches another replica, or the
 * same server after a restart, gets the first answer back and places no second order.
 */
class IdempotencyAcrossServersIT {
    private final ConsumerTables tables = new ConsumerTables(Coordinates.mainSchema());

    @Test
    void retriesThroughAnotherServerAndAfterARestartPlaceOneOrder() throws Exception {
        try (LibertyServer second = LibertyServer.copyOfMain(
                "durability-replica", 9193, Map.of("DURABILITY_INSTANCE_NAME", "it-replica"))) {
            second.start();
            second.awaitApplicationStarted();
            String customer = "replica-" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();

            HttpResponse<String> first = Http.postKeyedOrder(Coordinates.mainServer(), key, customer);
            HttpResponse<String> throughReplica = Http.postKeyedOrder(second.uri(), key, customer);
            second.stop();
            second.start();
            second.awaitApplicationStarted();
            HttpResponse<String> afterRestart = Http.postKeyedOrder(second.uri(), key, customer);

            assertThat(first.statusCode()).isEqualTo(201);
            for (HttpResponse<String> retry : List.of(throughReplica, afterRestart)) {
                assertThat(retry.statusCode()).isEqualTo(201);
                assertThat(retry.body()).isEqualTo(first.body());
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
            }
            assertThat(tables.count("demo_orders", "customer = ?", customer)).isEqualTo(1);

            String racing = "race-" + UUID.randomUUID();
            List<HttpResponse<String>> raced = concurrently(List.of(Coordinates.mainServer(), second.uri()), racing);
            assertThat(raced)
                    .allSatisfy(response -> assertThat(response.statusCode())
                            .as(response.body())
                            .isIn(201, 409));
            assertThat(tables.count("demo_orders", "customer = ?", racing))
                    .as("twenty requests with one key, half to each server")
                    .isEqualTo(1);
        }
    }

    private static List<HttpResponse<String>> concurrently(List<URI> servers, String customer) throws Exception {
        String key = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Future<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                URI server = servers.get(i % servers.size());
                sent.add(pool.submit(() -> Http.postKeyedOrder(server, key, customer)));
            }
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> response : sent) {
                responses.add(response.get());
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }
}
