package dev.durability.inbox.boundary;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.durability.broker.control.BrokerConfig;
import dev.durability.broker.control.BrokerConnection;
import dev.durability.broker.control.TopologyRefused;
import dev.durability.config.control.ServiceConfig;
import dev.durability.deadletter.boundary.DeadLetterAudit;
import dev.durability.deadletter.boundary.DeadLetterListener;
import dev.durability.deadletter.control.DeadLetterConfig;
import dev.durability.deadletter.control.DeadLetterMetrics;
import dev.durability.inbox.EventHandler;
import dev.durability.inbox.control.ConfirmedSend;
import dev.durability.inbox.control.ConsumerDeclaration;
import dev.durability.inbox.control.ConsumerDiscovery;
import dev.durability.inbox.control.InboxConfig;
import dev.durability.inbox.control.InboxMetrics;
import dev.durability.inbox.control.QueueTopology;
import dev.durability.outbox.control.ShortLivedValue;
import dev.durability.tracing.control.MessagingSpans;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Keeps every declared consumer and the dead-letter queue's consumer running on this server: declares
 * the topology at start-up (a queue that exists with other arguments stops the application's start with
 * the broker's reason), then opens the consuming channels once the application has started, and opens
 * them again whenever one was lost (broker restart, failed ack) or a paused consumer's pause is over.
 *
 * <p>Timer: a non-persistent interval timer every {@code durability.inbox.supervise-interval-ms}
 * (default 5 s), plus one-off timers to reopen a dropped channel at once or to resume a paused consumer;
 * no transaction (each delivery runs its own). Deliveries run on the broker client's threads, which a
 * managed thread factory makes; this bean only opens and closes channels.
 */
@Startup
@Singleton
@DependsOn({"ConfigurationCheck", "SchemaMigration"})
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ConsumerSupervisor {
    private static final Logger LOG = Logger.getLogger(ConsumerSupervisor.class.getName());
    private static final String DEAD_LETTERS = "(dead letters)";

    /**
     * How long past its whole retry schedule an envelope may stay in progress before it counts as stale: a retry
     * copy waits behind the consumer queue's backlog, and a consumer pauses while the database or broker fails
     * (docs/decisions/0055-stale-retries.md).
     */
    static final Duration STALE_GRACE = Duration.ofMinutes(10);

    @Resource
    TimerService timers;

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Resource
    SessionContext context;

    @Resource(lookup = ServiceConfig.DATA_SOURCE)
    DataSource dataSource;

    private ConsumerSupervisor self;

    @Inject
    ConsumerDiscovery discovery;

    @Inject
    BeanManager beans;

    @Inject
    BrokerConnection broker;

    @Inject
    BrokerConfig brokerConfig;

    @Inject
    ServiceConfig service;

    @Inject
    InboxConfig config;

    @Inject
    DeadLetterConfig deadLetters;

    @Inject
    QueueTopology topology;

    @Inject
    InboxTransactions transactions;

    @Inject
    InboxMetrics metrics;

    @Inject
    DeadLetterAudit audit;

    @Inject
    DeadLetterMetrics deadLetterMetrics;

    @Inject
    MetricRegistry registry;

    @Inject
    MessagingSpans spans;

    private Connection connection;
    private final Map<String, Channel[]> channels = new HashMap<>();
    private final Map<String, ConfirmedSend[]> sends = new HashMap<>();
    private final Map<String, EventHandler> handlers = new HashMap<>();
    private final Map<String, Long> pausedUntil = new ConcurrentHashMap<>();
    private final Set<String> problemsLogged = new HashSet<>();
    private final ShortLivedValue<Double> deadLetterDepth =
            new ShortLivedValue<>(this::readDeadLetterDepth, Duration.ofSeconds(5), System::nanoTime);
    private volatile boolean started;
    private volatile boolean stopping;
    private volatile long lastSupervisedNanos = System.nanoTime();

    @PostConstruct
    void start() {
        self = context.getBusinessObject(ConsumerSupervisor.class);
        if (!config.enabled()) {
            LOG.info("Consumers disabled on this server (durability.inbox.enabled=false): no queue is consumed here");
            return;
        }
        discovery.declarations().forEach(consumer -> {
            metrics.register(consumer.queue());
            ShortLivedValue<Double> depth =
                    new ShortLivedValue<>(() -> readDepth(consumer.queue()), Duration.ofSeconds(5), System::nanoTime);
            registry.gauge(
                    Metadata.builder()
                            .withName("durability_inbox_queue_depth")
                            .withDescription("Messages ready in a consumer's queue, waiting for a consumer (NaN when "
                                    + "the broker is unreachable); with no processing it means the consumer stalled")
                            .withUnit(MetricUnits.NONE)
                            .build(),
                    depth,
                    ShortLivedValue::get,
                    new Tag("queue", consumer.queue()),
                    new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
            Duration staleAfter = config.retryPolicy(consumer).retrySchedule().plus(STALE_GRACE);
            ShortLivedValue<Double> stale = new ShortLivedValue<>(
                    () -> readStaleInProgress(consumer.queue(), staleAfter), Duration.ofSeconds(5), System::nanoTime);
            registry.gauge(
                    Metadata.builder()
                            .withName("durability_inbox_stale_in_progress")
                            .withDescription(
                                    "Envelopes that failed in a consumer's queue and are neither processed nor "
                                            + "dead-lettered although their whole retry schedule and "
                                            + STALE_GRACE.toMinutes()
                                            + " minutes have passed since the first failure: their retry "
                                            + "copy was lost, or the consumer has not run since (NaN when the database is "
                                            + "unreachable)")
                            .withUnit(MetricUnits.NONE)
                            .build(),
                    stale,
                    ShortLivedValue::get,
                    new Tag("queue", consumer.queue()),
                    new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
        });
        deadLetterMetrics.register();
        try {
            declareAll();
        } catch (TopologyRefused e) {
            throw e;
        } catch (IOException | TimeoutException | RuntimeException e) {
            LOG.warning(() -> "RabbitMQ unreachable at start-up; consumers start once it is: " + e);
        }
        registry.gauge(
                Metadata.builder()
                        .withName("durability_dlq_depth")
                        .withDescription("Messages waiting in this service's dead-letter queue (NaN when the broker is "
                                + "unreachable)")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                this,
                supervisor -> supervisor.deadLetterDepth.get(),
                new Tag(ServiceConfig.METRIC_LABEL, service.serviceName()));
        long interval = config.superviseInterval().toMillis();
        timers.createIntervalTimer(500, interval, new TimerConfig("durability-consumers", false));
        LOG.info(() -> "Consumers declared: "
                + discovery.declarations().stream()
                        .map(c -> c.queue() + " <- " + c.eventTypes() + " (" + c.handlerName() + ")")
                        .toList()
                + "; dead letters to " + deadLetters.queue());
    }

    /**
     * How long ago a supervision round began; read without the supervisor's lock, so a health probe never
     * waits on a stuck round. Grows without bound only when supervision hangs or its timer stopped.
     */
    public Duration sinceLastSupervision() {
        return Duration.ofNanos(System.nanoTime() - lastSupervisedNanos);
    }

    @PreDestroy
    synchronized void stop() {
        stopping = true;
        // Slots that never opened a channel hold no send (List.of would refuse their nulls).
        sends.values().stream().flatMap(Arrays::stream).filter(Objects::nonNull).forEach(ConfirmedSend::close);
        if (connection != null) {
            connection.abort(2_000);
        }
    }

    /** Runs on the interval timer and when a listener asks for it; never twice at once. */
    @Timeout
    public synchronized void supervise() {
        lastSupervisedNanos = System.nanoTime();
        if (stopping || !applicationStarted()) {
            return;
        }
        try {
            if (connection == null || !connection.isOpen()) {
                connection = broker.openConsumerConnection("consumers");
                // A lost connection (broker restart, network) is noticed at once, not at the next interval.
                connection.addShutdownListener(cause -> {
                    if (!cause.isInitiatedByApplication()) {
                        reopenSoon();
                    }
                });
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            problem(
                    "broker",
                    "Consumers cannot reach RabbitMQ; retrying every "
                            + config.superviseInterval().toMillis() + " ms: " + e);
            return;
        }
        for (ConsumerDeclaration consumer : discovery.declarations()) {
            ensureConsuming(consumer);
        }
        ensureDeadLetterConsumer();
    }

    private void ensureConsuming(ConsumerDeclaration consumer) {
        // A heartbeat per queue, not per round: a round over many paused queues during an outage may take
        // long, and is not hung while it moves on from one queue to the next.
        lastSupervisedNanos = System.nanoTime();
        String queue = consumer.queue();
        Long paused = pausedUntil.get(queue);
        if (paused != null) {
            if (paused > System.currentTimeMillis()) {
                return;
            }
            if (!databaseAnswers() || broker.unresolvedBlock().isPresent()) {
                // Resuming now would only hand the deliveries back again (and, on a quorum queue, count
                // every hand-back towards the delivery limit): rest until the database answers and the
                // broker accepts what the consumer re-publishes.
                pause(queue);
                return;
            }
            pausedUntil.remove(queue);
        }
        Channel[] slots = channels.computeIfAbsent(queue, q -> new Channel[config.concurrency(consumer)]);
        ConfirmedSend[] senders = sends.computeIfAbsent(queue, q -> new ConfirmedSend[slots.length]);
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null && slots[i].isOpen()) {
                continue;
            }
            try {
                EventHandler handler = handlers.computeIfAbsent(queue, q -> reference(consumer.handler()));
                // A new channel gets a send of its own: the old channel's listener may still be finishing
                // a delivery on another thread with the old one.
                if (senders[i] != null) {
                    // Closed off this lock: closing writes to the publishing connection, which may be blocked.
                    ConfirmedSend old = senders[i];
                    scheduler.execute(old::close);
                }
                senders[i] = new ConfirmedSend(broker, config.sendTimeout());
                Channel channel = connection.createChannel();
                topology.declareConsumer(channel, consumer);
                channel.basicQos(config.prefetch(consumer));
                channel.basicConsume(
                        queue,
                        false,
                        service.instanceName() + "/" + queue + "/" + i,
                        new InboxListener(
                                channel,
                                consumer,
                                handler,
                                config.retryPolicy(consumer),
                                transactions,
                                senders[i],
                                metrics,
                                brokerConfig.deadLetterExchange(),
                                service.serviceName(),
                                () -> pause(queue),
                                this::reopenSoon,
                                brokerConfig.maxMessageBytes(),
                                spans));
                slots[i] = channel;
                resolved(queue, "Consumer of " + queue + " running");
            } catch (IOException | RuntimeException e) {
                problem(queue, "Consumer of " + queue + " could not start; retrying: " + e);
                return;
            }
        }
    }

    private void ensureDeadLetterConsumer() {
        Channel[] slot = channels.computeIfAbsent(DEAD_LETTERS, q -> new Channel[1]);
        if (slot[0] != null && slot[0].isOpen()) {
            return;
        }
        try {
            Channel channel = connection.createChannel();
            topology.declareDeadLetterQueue(channel, deadLetters.queue(), deadLetters.quorum());
            channel.basicQos(deadLetters.prefetch());
            channel.basicConsume(
                    deadLetters.queue(),
                    false,
                    service.instanceName() + "/" + deadLetters.queue(),
                    new DeadLetterListener(channel, audit, deadLetters, deadLetterMetrics, this::reopenSoon, spans));
            slot[0] = channel;
            resolved(DEAD_LETTERS, "Dead-letter consumer of " + deadLetters.queue() + " running");
        } catch (IOException | RuntimeException e) {
            problem(
                    DEAD_LETTERS,
                    "Dead-letter consumer of " + deadLetters.queue() + " could not start; retrying: " + e);
        }
    }

    /** Declares every queue on channels of the publishing connection; a refusal names the queue and stops the start. */
    private void declareAll() throws IOException, TimeoutException {
        for (ConsumerDeclaration consumer : discovery.declarations()) {
            try (Channel channel = broker.openChannel()) {
                topology.declareConsumer(channel, consumer);
            }
        }
        try (Channel channel = broker.openChannel()) {
            topology.declareDeadLetterQueue(channel, deadLetters.queue(), deadLetters.quorum());
        }
    }

    /** A consumer whose database or broker failed under it takes no deliveries for a while, then resumes. */
    private void pause(String queue) {
        pausedUntil.put(queue, System.currentTimeMillis() + config.pause().toMillis());
        schedule(config.pause().toMillis() + 50);
    }

    private void reopenSoon() {
        schedule(1_000);
    }

    /**
     * Supervises again after a delay, on a managed scheduler through this bean's own proxy: the broker's
     * threads that ask for it (a failed ack, a lost connection) are no bean method, and may not use the
     * timer service.
     */
    private void schedule(long delayMillis) {
        if (!stopping) {
            scheduler.schedule(() -> self.supervise(), delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private boolean databaseAnswers() {
        try (java.sql.Connection connection = dataSource.getConnection()) {
            return connection.isValid(2);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private EventHandler reference(Bean<?> bean) {
        return (EventHandler) beans.getReference(bean, EventHandler.class, beans.createCreationalContext(bean));
    }

    private double readDeadLetterDepth() {
        return readDepth(deadLetters.queue());
    }

    private double readStaleInProgress(String queue, Duration staleAfter) {
        try {
            return transactions.staleInProgress(queue, staleAfter);
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    private double readDepth(String queue) {
        try (Channel channel = broker.openChannel()) {
            return channel.queueDeclarePassive(queue).getMessageCount();
        } catch (IOException | TimeoutException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * Handlers may live in the EAR's web modules, which start after this one: consuming begins once the
     * whole application has started (Liberty's application MBean says so; elsewhere, at the first tick).
     */
    private boolean applicationStarted() {
        if (started) {
            return true;
        }
        try {
            String application = InitialContext.doLookup("java:app/AppName");
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(
                    "WebSphere:service=com.ibm.websphere.application.ApplicationMBean,name=" + application);
            started = !server.isRegistered(name) || "STARTED".equals(server.getAttribute(name, "State"));
        } catch (NamingException | javax.management.JMException | RuntimeException e) {
            LOG.log(Level.FINE, "application state unknown; consuming", e);
            started = true;
        }
        return started;
    }

    private void problem(String key, String message) {
        LOG.log(problemsLogged.add(key) ? Level.WARNING : Level.FINE, message);
    }

    private void resolved(String key, String message) {
        if (problemsLogged.remove(key)) {
            LOG.info(message);
        }
    }
}
