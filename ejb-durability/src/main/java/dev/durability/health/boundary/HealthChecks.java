package dev.durability.health.boundary;

import com.rabbitmq.client.Channel;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.config.control.ServiceConfig;
import dev.durability.inbox.boundary.ConsumerSupervisor;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.outbox.control.OutboxConfig;
import dev.durability.outbox.control.OutboxMetrics;
import dev.durability.schema.control.MigrationPlan;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

/**
 * The server's probes on {@code /health/ready} and {@code /health/live}. Readiness says whether this server
 * can do its work now (a load balancer stops sending it requests while it cannot); liveness says whether it
 * is stuck and only a restart helps, so it fails only on a hang, never on an outage of the database or
 * broker, which a restart would not cure.
 *
 * <p>The checks are not CDI health beans themselves: Open Liberty lists a health bean once for every web module
 * whose CDI container sees it, and every WAR of the EAR sees this EJB module. One web module of the EAR registers
 * them (the admin WAR's {@code dev.durability.admin.health.HealthProbes};
 * docs/decisions/0059-health-checks-listed-once.md).
 *
 * <p>The probes are unauthenticated: a check that fails answers a fixed reason, never the exception's text (a
 * database host, a user, an authentication error); the server log has the cause.
 */
@ApplicationScoped
public class HealthChecks {
    private static final Logger LOG = Logger.getLogger(HealthChecks.class.getName());
    private static final int DATABASE_TIMEOUT_SECONDS = 2;
    private static final Map<String, String> REASONS = Map.of(
            "durability-database", "the database did not answer; the server log has the cause",
            "durability-schema", "the schema's migrations could not be read; the server log has the cause",
            "durability-broker", "the broker did not answer; the server log has the cause");

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    @Inject
    ServiceConfig service;

    @Inject
    BrokerConnection broker;

    @Inject
    OutboxConfig outbox;

    @Inject
    OutboxMetrics outboxMetrics;

    @Inject
    InboxConfig inbox;

    @Inject
    ConsumerSupervisor consumers;

    /** Once every migration was applied it stays so until the next deployment: checked until then. */
    private volatile boolean migrated;

    /** The failure each check last logged, so a probe every few seconds logs an outage once, not each time. */
    private final Map<String, String> logged = new ConcurrentHashMap<>();

    /** Readiness. */
    public HealthCheck database() {
        return () -> {
            try (Connection connection = dataSource.getConnection();
                    Statement query = connection.createStatement()) {
                query.setQueryTimeout(DATABASE_TIMEOUT_SECONDS);
                query.execute("SELECT 1");
                logged.remove("durability-database");
                return HealthCheckResponse.up("durability-database");
            } catch (Exception e) {
                return down("durability-database", e);
            }
        };
    }

    /** Readiness. */
    public HealthCheck schema() {
        return () -> {
            if (!migrated) {
                try {
                    migrated = MigrationPlan.forSchema(dataSource, service.schema())
                                    .info()
                                    .pending()
                                    .length
                            == 0;
                } catch (RuntimeException e) {
                    return down("durability-schema", e);
                }
                logged.remove("durability-schema");
            }
            return HealthCheckResponse.named("durability-schema")
                    .status(migrated)
                    .withData("schema", service.schema())
                    .build();
        };
    }

    /**
     * Readiness: the broker is reachable. A broker that blocks publishers (a memory or disk alarm) is reachable:
     * the outbox keeps what is staged meanwhile, and taking every replica out of service would turn an alarm into
     * an outage. Its blocked publishing connection reads nothing, so no channel is opened on it then: the block
     * the broker announced answers for it (docs/decisions/0035-health-probes.md).
     */
    public HealthCheck broker() {
        return () -> {
            Optional<String> blocked = broker.blockedReason();
            if (blocked.isPresent()) {
                return blocked(blocked.get());
            }
            try (Channel channel = broker.openChannel()) {
                logged.remove("durability-broker");
                return HealthCheckResponse.named("durability-broker").up().build();
            } catch (Exception e) {
                // The alarm may have blocked the connection while the channel was opening on it.
                return broker.blockedReason().map(HealthChecks::blocked).orElseGet(() -> down("durability-broker", e));
            }
        };
    }

    private static HealthCheckResponse blocked(String reason) {
        return HealthCheckResponse.named("durability-broker")
                .up()
                .withData("blocked", reason)
                .build();
    }

    private HealthCheckResponse down(String check, Exception cause) {
        String failure = cause.getClass().getName() + ": " + cause.getMessage();
        if (!failure.equals(logged.put(check, failure))) {
            LOG.warning(() -> String.format("Health check %s is down: %s", check, failure.replaceAll("\\R", " ")));
        }
        return HealthCheckResponse.named(check)
                .down()
                .withData("reason", REASONS.get(check))
                .build();
    }

    /**
     * Every wait of a drain tick is bounded under the lease (docs/decisions/0013-publish-round-budget.md),
     * so a tick that has not ended for two leases is hung, not slow.
     */
    public HealthCheck drain() {
        return () -> {
            Duration limit =
                    Duration.ofSeconds(Math.max(60, 2L * outbox.leaseSeconds())).plus(outbox.pollInterval());
            Duration since = outboxMetrics.sinceLastTick();
            return HealthCheckResponse.named("durability-drain")
                    .status(since.compareTo(limit) < 0)
                    .withData("seconds-since-last-tick", since.toSeconds())
                    .withData("limit-seconds", limit.toSeconds())
                    .build();
        };
    }

    /** A supervision round waits at most on a broker connect; many missed rounds in a row mean a hang. */
    public HealthCheck consumers() {
        return () -> {
            if (!inbox.enabled()) {
                return HealthCheckResponse.named("durability-consumers")
                        .up()
                        .withData("consumers", "disabled on this server")
                        .build();
            }
            Duration limit =
                    Duration.ofSeconds(60).plus(inbox.superviseInterval().multipliedBy(6));
            Duration since = consumers.sinceLastSupervision();
            return HealthCheckResponse.named("durability-consumers")
                    .status(since.compareTo(limit) < 0)
                    .withData("seconds-since-last-supervision", since.toSeconds())
                    .withData("limit-seconds", limit.toSeconds())
                    .build();
        };
    }
}
