package dev.durability.incontainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.durability.retention.control.RetentionMetrics;
import dev.durability.retention.control.RetentionPlan;
import dev.durability.retention.control.RetentionPruner;
import dev.durability.retention.control.TablePruning;
import dev.durability.schema.control.MigrationPlan;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retention pruner on the in-container tests' own schema: what each window lets go and what it keeps,
 * batches and the per-run cap, and one server per table at a time.
 */
@ExtendWith(ArquillianExtension.class)
class RetentionPrunerIT {
    private static final String S = LibraryDeployment.SCHEMA + ".";
    private static final double DAY = 86_400;
    private static final double TEN_DAYS = 10 * DAY;
    /** The seconds between seeding a row and measuring it, on a busy machine. */
    private static final double SLACK = 120;

    private static final RetentionPlan DEFAULTS = new RetentionPlan(
            Duration.ofDays(30), Duration.ZERO, Duration.ofDays(31), Duration.ofDays(90), true, 5_000, 500_000, 30);
    /** Windows of minutes, as a service at high volume keeps (docs/decisions/0092): the outbox 10, the inbox 20. */
    private static final RetentionPlan MINUTES = new RetentionPlan(
            Duration.ofMinutes(10), Duration.ZERO, Duration.ofMinutes(20), Duration.ZERO, false, 5_000, 500_000, 30);

    @Deployment
    static WebArchive deployment() {
        return LibraryDeployment.create("retention-it", RetentionPrunerIT.class)
                .addPackage(RetentionPruner.class.getPackage());
    }

    @Resource(lookup = LibraryDeployment.DATA_SOURCE)
    DataSource dataSource;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    @Inject
    RetentionMetrics metrics;

    @Inject
    MetricRegistry registry;

    private RetentionPruner pruner;

    @BeforeEach
    void emptyTables() throws SQLException {
        LibraryDeployment.freshOutbox(dataSource);
        execute("DELETE FROM " + S + "event_inbox; DELETE FROM " + S + "dead_letter_audit; DELETE FROM " + S
                + "idempotency_responses");
        pruner = new RetentionPruner(dataSource, LibraryDeployment.SCHEMA, metrics);
    }

    @Test
    void eachWindowLetsItsOldRowsGoAndKeepsEverythingElse() throws SQLException {
        outbox(3, 31, "published");
        outbox(2, 31, "unroutable");
        outbox(4, 31, "pending");
        outbox(5, 29, "published");
        inbox(6, 32);
        inbox(7, 30);
        deadLetters(8, 91);
        deadLetters(9, 89);
        idempotency(10, "now() - interval '1 minute'");
        idempotency(11, "now() + interval '1 hour'");

        Map<String, TablePruning> run = byTable(pruner.prune(DEFAULTS));

        assertThat(run.get("event_outbox").deleted()).isEqualTo(3);
        assertThat(count("event_outbox", "published_at IS NULL AND unroutable_at IS NULL"))
                .as("pending rows, however old, are never pruned")
                .isEqualTo(4);
        assertThat(count("event_outbox", "published_at IS NOT NULL"))
                .as("fresh published rows stay")
                .isEqualTo(5);
        assertThat(run.get(RetentionPruner.UNROUTABLE_ROWS).outcome()).isEqualTo(TablePruning.Outcome.DISABLED);
        assertThat(count("event_outbox", "unroutable_at IS NOT NULL"))
                .as("rows that reached no consumer wait to be re-staged")
                .isEqualTo(2);
        assertThat(run.get("event_inbox").deleted()).isEqualTo(6);
        assertThat(count("event_inbox", "true")).isEqualTo(7);
        assertThat(run.get("dead_letter_audit").deleted()).isEqualTo(8);
        assertThat(count("dead_letter_audit", "true")).isEqualTo(9);
        assertThat(run.get("idempotency_responses").deleted()).isEqualTo(10);
        assertThat(count("idempotency_responses", "true")).isEqualTo(11);
    }

    /**
     * Windows of minutes, as a service at high volume keeps (docs/decisions/0092): rows go by the second, not the
     * day, and how far behind a table is reads in seconds too.
     */
    @Test
    void windowsOfMinutesLetRowsGoByTheMinute() throws SQLException {
        double minute = 1.0 / 1_440;
        outbox(3, 12 * minute, "published");
        outbox(4, 8 * minute, "published");
        inbox(5, 22 * minute);
        inbox(6, 18 * minute);

        Map<String, TablePruning> measured = byTable(pruner.measure(MINUTES));
        assertThat(measured.get("event_outbox").overdueSeconds()).isBetween(120.0, 120 + SLACK);
        assertThat(measured.get("event_inbox").overdueSeconds()).isBetween(120.0, 120 + SLACK);

        Map<String, TablePruning> run = byTable(pruner.prune(MINUTES));
        assertThat(run.get("event_outbox").deleted()).isEqualTo(3);
        assertThat(count("event_outbox", "published_at IS NOT NULL")).isEqualTo(4);
        assertThat(run.get("event_inbox").deleted()).isEqualTo(5);
        assertThat(count("event_inbox", "true")).isEqualTo(6);
        assertThat(run.get("event_outbox").overdueSeconds()).isZero();
    }

    @Test
    void unroutableRowsGoOnlyWithAWindowOfTheirOwn() throws SQLException {
        outbox(2, 31, "unroutable");
        outbox(3, 10, "unroutable");
        RetentionPlan unroutable = new RetentionPlan(
                Duration.ofDays(30), Duration.ofDays(30), Duration.ZERO, Duration.ZERO, false, 5_000, 500_000, 30);

        Map<String, TablePruning> run = byTable(pruner.prune(unroutable));

        assertThat(run.get(RetentionPruner.UNROUTABLE_ROWS).deleted()).isEqualTo(2);
        assertThat(count("event_outbox", "unroutable_at IS NOT NULL")).isEqualTo(3);
    }

    @Test
    void aTableWhoseWindowIsZeroIsUntouched() throws SQLException {
        outbox(3, 400, "published");
        inbox(4, 400);
        deadLetters(5, 400);
        idempotency(6, "now() - interval '400 days'");
        RetentionPlan keepAll = new RetentionPlan(
                Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, false, 5_000, 500_000, 30);

        List<TablePruning> run = pruner.prune(keepAll);

        assertThat(run).allSatisfy(table -> assertThat(table.outcome()).isEqualTo(TablePruning.Outcome.DISABLED));
        assertThat(count("event_outbox", "true")).isEqualTo(3);
        assertThat(count("event_inbox", "true")).isEqualTo(4);
        assertThat(count("dead_letter_audit", "true")).isEqualTo(5);
        assertThat(count("idempotency_responses", "true")).isEqualTo(6);
    }

    @Test
    void aLargeBacklogGoesInBatchesAndARunStopsAtItsCap() throws SQLException {
        outbox(250_000, 40, "published");
        RetentionPlan capped = new RetentionPlan(
                Duration.ofDays(30), Duration.ZERO, Duration.ZERO, Duration.ZERO, false, 5_000, 100_000, 30);

        TablePruning first = byTable(pruner.prune(capped)).get("event_outbox");
        TablePruning second = byTable(pruner.prune(capped)).get("event_outbox");
        TablePruning third = byTable(pruner.prune(capped)).get("event_outbox");

        assertThat(first.deleted()).as("the cap of one run").isEqualTo(100_000);
        assertThat(first.stoppedAtCap())
                .as("a backlog is left for a catch-up run")
                .isTrue();
        assertThat(first.overdueSeconds())
                .as("the oldest row left is 40 days old in a window of 30")
                .isCloseTo(TEN_DAYS, within(SLACK));
        assertThat(third.stoppedAtCap()).isFalse();
        assertThat(third.overdueSeconds()).as("caught up").isZero();
        assertThat(overdueGauge("event_outbox")).isZero();
        assertThat(TablePruning.backlogLeft(List.of(first, second))).isTrue();
        assertThat(TablePruning.backlogLeft(List.of(third))).isFalse();
        assertThat(first.statements())
                .as("batches of 5,000 rows, each its own transaction")
                .isEqualTo(20);
        assertThat(second.deleted()).isEqualTo(100_000);
        assertThat(third.deleted()).isEqualTo(50_000);
        assertThat(third.statements())
                .as("the last batch found fewer rows than it could take")
                .isEqualTo(11);
        assertThat(count("event_outbox", "true")).isZero();
        // Each statement deletes at most one batch; on a loaded two-core machine one takes well under a second.
        assertThat(List.of(first.longest(), second.longest(), third.longest()))
                .allSatisfy(longest -> assertThat(longest).isLessThan(Duration.ofSeconds(10)));
    }

    @Test
    void aMeasurementDeletesNothingAndReportsHowFarBehindEachTableIs() throws SQLException {
        outbox(3, 40, "published");
        outbox(2, 45, "pending");
        inbox(4, 33);
        deadLetters(5, 89);
        idempotency(1, "now() - interval '1 hour'");

        Map<String, TablePruning> measured = byTable(pruner.measure(DEFAULTS));

        assertThat(measured.values())
                .allSatisfy(table -> assertThat(table.deleted()).isZero());
        assertThat(count("event_outbox", "true")).isEqualTo(5);
        assertThat(measured.get("event_outbox").overdueSeconds())
                .as("published rows 40 days old in a window of 30; pending rows are never retention's")
                .isCloseTo(TEN_DAYS, within(SLACK));
        assertThat(measured.get("event_inbox").overdueSeconds()).isCloseTo(2 * DAY, within(SLACK));
        assertThat(measured.get("dead_letter_audit").overdueSeconds())
                .as("inside its window")
                .isZero();
        assertThat(measured.get("idempotency_responses").overdueSeconds()).isCloseTo(3_600.0, within(SLACK));
        assertThat(measured.get(RetentionPruner.UNROUTABLE_ROWS).outcome()).isEqualTo(TablePruning.Outcome.DISABLED);
        assertThat(overdueGauge("event_outbox")).isCloseTo(TEN_DAYS, within(SLACK));
        assertThat(overdueGauge("event_inbox")).isCloseTo(2 * DAY, within(SLACK));
        assertThat(overdueGauge("dead_letter_audit")).isZero();
        assertThat(overdueGauge(RetentionPruner.UNROUTABLE_ROWS))
                .as("kept forever: never behind")
                .isZero();
    }

    @Test
    void aTableAnotherServerIsPruningIsLeftToIt() throws Exception {
        outbox(3, 31, "published");
        inbox(4, 32);
        try (Connection otherServer = dataSource.getConnection();
                PreparedStatement lock = otherServer.prepareStatement("SELECT pg_advisory_lock(1146242388, hashtext('"
                        + LibraryDeployment.SCHEMA + ".event_outbox'))")) {
            lock.execute();
            try {
                Map<String, TablePruning> run = byTable(pruner.prune(DEFAULTS));

                assertThat(run.get("event_outbox").outcome()).isEqualTo(TablePruning.Outcome.PRUNED_ELSEWHERE);
                assertThat(run.get("event_outbox").overdueSeconds())
                        .as("measured all the same")
                        .isCloseTo(DAY, within(SLACK));
                assertThat(count("event_outbox", "true")).isEqualTo(3);
                assertThat(run.get("event_inbox").deleted()).isEqualTo(4);
            } finally {
                try (Statement unlock = otherServer.createStatement()) {
                    unlock.execute("SELECT pg_advisory_unlock_all()");
                }
            }
        }
        assertThat(heldRetentionLocks()).as("a run leaves no lock behind").isZero();
        assertThat(byTable(pruner.prune(DEFAULTS)).get("event_outbox").deleted())
                .isEqualTo(3);
    }

    @Test
    void twoServersPruningAtOnceDeleteEachRowOnceAndNeitherFails() throws Exception {
        outbox(60_000, 31, "published");
        inbox(60_000, 32);
        CountDownLatch start = new CountDownLatch(1);
        Future<List<TablePruning>> one = executor.submit(() -> {
            start.await();
            return new RetentionPruner(dataSource, LibraryDeployment.SCHEMA, metrics).prune(DEFAULTS);
        });
        Future<List<TablePruning>> other = executor.submit(() -> {
            start.await();
            return new RetentionPruner(dataSource, LibraryDeployment.SCHEMA, metrics).prune(DEFAULTS);
        });
        start.countDown();
        List<TablePruning> both = new java.util.ArrayList<>(one.get());
        both.addAll(other.get());

        assertThat(both).noneMatch(table -> table.outcome() == TablePruning.Outcome.FAILED);
        // Unlocked, the two runs would take turns at each table's batches; locked, one run deletes a
        // table's rows and the other skips it (or finds nothing left).
        for (String table : List.of("event_outbox", "event_inbox")) {
            assertThat(both.stream()
                            .filter(pruning -> pruning.table().equals(table))
                            .map(TablePruning::deleted))
                    .as(table)
                    .containsExactlyInAnyOrder(60_000L, 0L);
        }
        assertThat(heldRetentionLocks()).isZero();
        assertThat(count("event_outbox", "true")).isZero();
        assertThat(count("event_inbox", "true")).isZero();
    }

    /**
     * The outbox's day partitions (docs/decisions/0093-outbox-partitioned-by-day.md), on a schema of the test's own seen
     * from days ahead: every run makes the partitions of the days ahead; a partition whose every id is past the window
     * is retired whole, after the rows retention keeps in it move to the default partition unchanged; one holding more
     * of those than a retirement moves is kept, and the gauge says so; one whose lock does not come is overdue.
     */
    @Test
    void dayPartitionsAreMadeAheadAndRetiredWholeWithWhatRetentionKeepsMovedOut() throws Exception {
        String schema = "durability_it_partitions";
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        MigrationPlan.forSchema(dataSource, schema).migrate();
        RetentionPlan oneDay = new RetentionPlan(
                Duration.ofDays(1), Duration.ZERO, Duration.ZERO, Duration.ZERO, false, 5_000, 500_000, 30);
        RetentionPruner pruner = new RetentionPruner(dataSource, schema, metrics);
        Instant now = Instant.now();
        double droppedBefore = droppedPartitions(schema, "event_outbox");

        pruner.asOf(now.plus(Duration.ofDays(10))).prune(oneDay);
        assertThat(partitions(schema, "event_outbox"))
                .as("the tenth day and the three after it made; the table as it was (its bound a week ahead) retired")
                .containsExactlyInAnyOrder(
                        "event_outbox_default",
                        day("event_outbox", now, 10),
                        day("event_outbox", now, 11),
                        day("event_outbox", now, 12),
                        day("event_outbox", now, 13));

        dayRows(schema, now, 10, 3, "published");
        List<String> keptRows = new java.util.ArrayList<>(dayRows(schema, now, 10, 1, "pending"));
        keptRows.addAll(dayRows(schema, now, 10, 1, "unroutable"));
        dayRows(schema, now, 11, 1_001, "pending");
        dayRows(schema, now, 12, 2, "published");
        String statesBefore = states(schema, keptRows);

        pruner.asOf(now.plus(Duration.ofDays(14))).prune(oneDay);
        assertThat(partitions(schema, "event_outbox"))
                .as("days 10 and 12 retired; day 11 kept; days 14 to 17 made")
                .containsExactlyInAnyOrder(
                        "event_outbox_default",
                        day("event_outbox", now, 11),
                        day("event_outbox", now, 13),
                        day("event_outbox", now, 14),
                        day("event_outbox", now, 15),
                        day("event_outbox", now, 16),
                        day("event_outbox", now, 17));
        assertThat(droppedPartitions(schema, "event_outbox") - droppedBefore)
                .as("the table as it was, days 10 and 12")
                .isEqualTo(3);
        assertThat(keptPartitions(schema, "event_outbox"))
                .as("day 11, with 1,001 pending rows")
                .isEqualTo(1);
        assertThat(states(schema, keptRows))
                .as("the pending and the unroutable row of day 10, unchanged")
                .isEqualTo(statesBefore);
        assertThat(partitionsHolding(schema, "event_outbox", "id", keptRows))
                .as("the pending and the unroutable row of day 10, moved out")
                .containsExactly(schema + ".event_outbox_default");
        assertThat(count(schema, "event_outbox", "true"))
                .as("day 10's published rows went with it, and day 12's")
                .isEqualTo(1_003);

        // Another transaction holds the outbox: the retirement's lock does not come, and the day is overdue.
        Instant later = now.plus(Duration.ofDays(16)).plus(Duration.ofHours(1));
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement hold = holder.createStatement()) {
                hold.execute("LOCK TABLE " + schema + ".event_outbox IN ROW EXCLUSIVE MODE");
                TablePruning busy = byTable(pruner.asOf(later).prune(oneDay)).get("event_outbox");
                assertThat(busy.overdueSeconds())
                        .as("day 14, whose every id is an hour and more past the window")
                        .isGreaterThanOrEqualTo(3_600.0);
                assertThat(partitions(schema, "event_outbox")).contains(day("event_outbox", now, 14));
            } finally {
                holder.rollback();
            }
        }
        TablePruning free = byTable(pruner.asOf(later).prune(oneDay)).get("event_outbox");
        assertThat(free.overdueSeconds())
                .as("day 11, kept with its pending rows, is behind by more than three days; no other day is left")
                .isGreaterThan(Duration.ofDays(3).toSeconds())
                .isLessThan(Duration.ofDays(4).plusHours(1).toSeconds());
        assertThat(partitions(schema, "event_outbox"))
                .doesNotContain(day("event_outbox", now, 13), day("event_outbox", now, 14))
                .contains(day("event_outbox", now, 11));
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    /**
     * A window shorter than a day (docs/decisions/0093-outbox-partitioned-by-day.md), on a schema of the test's own
     * seen from days ahead: the rows past it go one by one from the partition of a day that is not over, the outbox's
     * and the inbox's, and how far behind each table is counts them; dropping the day would wait a window past its end.
     */
    @Test
    void windowsOfMinutesPruneTheDayPartitionsToo() throws Exception {
        String schema = "durability_it_minute_partitions";
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        MigrationPlan.forSchema(dataSource, schema).migrate();
        RetentionPruner pruner = new RetentionPruner(dataSource, schema, metrics);
        Instant noon = Instant.now()
                .plus(Duration.ofDays(10))
                .truncatedTo(java.time.temporal.ChronoUnit.DAYS)
                .plus(Duration.ofHours(12));
        pruner.asOf(noon).prune(MINUTES);

        outboxRows(schema, noon.minus(Duration.ofMinutes(12)), 3, "published");
        outboxRows(schema, noon.minus(Duration.ofMinutes(8)), 4, "published");
        outboxRows(schema, noon.minus(Duration.ofMinutes(12)), 2, "pending");
        inboxDayRows(schema, noon.minus(Duration.ofMinutes(22)), 0, 5, Duration.ZERO);
        inboxDayRows(schema, noon.minus(Duration.ofMinutes(18)), 0, 6, Duration.ZERO);
        assertThat(count(schema, "event_outbox_default", "true") + count(schema, "event_inbox_default", "true"))
                .as("every row in its day's partition")
                .isZero();
        assertThat(number("SELECT count(*) FROM pg_proc WHERE proname = 'durability_new_uuid7'"
                        + " AND pronamespace = CAST('" + schema + "' AS regnamespace) AND proconfig IS NULL"))
                .as("durability_new_uuid7 has no search path of its own, so the statements calling it inline it (V19)")
                .isEqualTo(1);

        String at = "CAST('" + noon + "' AS timestamptz)";
        assertThat(number("SELECT " + schema + ".event_outbox_prune_rows('published', 0, 100, " + at + ") + " + schema
                        + ".event_inbox_prune_rows(0, 100, " + at + ") + " + schema
                        + ".event_outbox_overdue('published', 0, " + at + ") + " + schema + ".event_inbox_overdue(0, "
                        + at + ")"))
                .as("a window of 0 keeps rows forever, called directly too")
                .isZero();

        Map<String, TablePruning> measured = byTable(pruner.asOf(noon).measure(MINUTES));
        assertThat(measured.get("event_outbox").overdueSeconds())
                .as("the oldest published row, two minutes less a second past the window")
                .isCloseTo(119, within(0.01));
        assertThat(measured.get("event_inbox").overdueSeconds()).isCloseTo(119, within(0.01));

        Map<String, TablePruning> run = byTable(pruner.asOf(noon).prune(MINUTES));
        assertThat(run.get("event_outbox").deleted()).isEqualTo(3);
        assertThat(count(schema, "event_outbox", "published_at IS NOT NULL")).isEqualTo(4);
        assertThat(count(schema, "event_outbox", "published_at IS NULL")).isEqualTo(2);
        assertThat(run.get("event_inbox").deleted()).isEqualTo(5);
        assertThat(count(schema, "event_inbox", "true")).isEqualTo(6);
        assertThat(run.get("event_outbox").overdueSeconds()).isZero();
        assertThat(run.get("event_inbox").overdueSeconds()).isZero();
        assertThat(partitions(schema, "event_outbox")).contains(day("event_outbox", noon, 0));
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    /**
     * The inbox's day partitions (docs/decisions/0094-inbox-partitioned-by-day.md), on a schema of the test's own seen
     * from days ahead: a partition whose every envelope id is past the window is retired whole, after its rows
     * received within the window (copies delivered late) move to the default partition unchanged, where they are
     * deleted one by one once past the window; one holding more of those than a retirement moves is kept until they
     * are past it too.
     */
    @Test
    void inboxDayPartitionsAreRetiredWholeWithTheRowsReceivedWithinTheWindowMovedOut() throws Exception {
        String schema = "durability_it_inbox_partitions";
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        MigrationPlan.forSchema(dataSource, schema).migrate();
        RetentionPlan oneDay = new RetentionPlan(
                Duration.ZERO, Duration.ZERO, Duration.ofDays(1), Duration.ZERO, false, 5_000, 500_000, 30);
        RetentionPruner pruner = new RetentionPruner(dataSource, schema, metrics);
        Instant midnight = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS);
        double droppedBefore = droppedPartitions(schema, "event_inbox");

        pruner.asOf(midnight.plus(Duration.ofDays(10))).prune(oneDay);
        assertThat(partitions(schema, "event_inbox"))
                .as("the tenth day and the three after it made; the table as it was retired")
                .containsExactlyInAnyOrder(
                        "event_inbox_default",
                        day("event_inbox", midnight, 10),
                        day("event_inbox", midnight, 11),
                        day("event_inbox", midnight, 12),
                        day("event_inbox", midnight, 13));

        Duration lateBy = Duration.ofDays(3).plusHours(12);
        inboxDayRows(schema, midnight, 10, 3, Duration.ZERO);
        List<String> late = inboxDayRows(schema, midnight, 10, 2, lateBy);
        inboxDayRows(schema, midnight, 11, 1_001, lateBy);
        String lateBefore = inboxStates(schema, late);

        pruner.asOf(midnight.plus(Duration.ofDays(14)).plus(Duration.ofHours(1)))
                .prune(oneDay);
        assertThat(partitions(schema, "event_inbox"))
                .as("days 10 and 12 retired; day 11 kept; days 14 to 17 made")
                .containsExactlyInAnyOrder(
                        "event_inbox_default",
                        day("event_inbox", midnight, 11),
                        day("event_inbox", midnight, 13),
                        day("event_inbox", midnight, 14),
                        day("event_inbox", midnight, 15),
                        day("event_inbox", midnight, 16),
                        day("event_inbox", midnight, 17));
        assertThat(droppedPartitions(schema, "event_inbox") - droppedBefore)
                .as("the table as it was, days 10 and 12")
                .isEqualTo(3);
        assertThat(keptPartitions(schema, "event_inbox"))
                .as("day 11, with 1,001 rows received within the window")
                .isEqualTo(1);
        assertThat(inboxStates(schema, late))
                .as("day 10's late copies, unchanged")
                .isEqualTo(lateBefore);
        assertThat(partitionsHolding(schema, "event_inbox", "envelope_id", late))
                .containsExactly(schema + ".event_inbox_default");
        assertThat(count(schema, "event_inbox", "true"))
                .as("day 10's rows received on time went with it")
                .isEqualTo(1_003);

        // Once the late copies are past the window too: day 11 retires whole, day 10's go one by one.
        TablePruning later = byTable(
                        pruner.asOf(midnight.plus(Duration.ofDays(18)).plus(Duration.ofHours(1)))
                                .prune(oneDay))
                .get("event_inbox");
        assertThat(later.deleted())
                .as("day 10's late copies, from the default partition")
                .isEqualTo(2);
        assertThat(later.overdueSeconds()).isZero();
        assertThat(partitions(schema, "event_inbox")).doesNotContain(day("event_inbox", midnight, 11));
        assertThat(keptPartitions(schema, "event_inbox")).isZero();
        assertThat(count(schema, "event_inbox", "true")).isZero();
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    /** The name of the table's day partition of the day {@code days} after {@code now}'s (UTC). */
    private static String day(String table, Instant now, int days) {
        return table + "_"
                + java.time.format.DateTimeFormatter.BASIC_ISO_DATE.format(now.plus(Duration.ofDays(days))
                        .atOffset(java.time.ZoneOffset.UTC)
                        .toLocalDate());
    }

    /** Rows with UUIDv7 ids of minutes into the day {@code days} after {@code now}'s; returns their ids. */
    private List<String> dayRows(String schema, Instant now, int days, int rows, String state) throws SQLException {
        return outboxRows(
                schema, now.plus(Duration.ofDays(days)).truncatedTo(java.time.temporal.ChronoUnit.DAYS), rows, state);
    }

    /** Outbox rows with UUIDv7 ids of the seconds after {@code start}, created then; returns their ids. */
    private List<String> outboxRows(String schema, Instant start, int rows, String state) throws SQLException {
        List<String> ids = new java.util.ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema + ".event_outbox"
                        + " (id, event_type, envelope, created_at, published_at, unroutable_at, next_attempt_at)"
                        + " SELECT id, 'retention.day', jsonb_build_object('id', id, 'event_type', 'retention.day'), at,"
                        + " CASE WHEN ? = 'published' THEN at + interval '1 minute' END,"
                        + " CASE WHEN ? = 'unroutable' THEN at + interval '1 minute' END,"
                        + " CASE WHEN ? = 'pending' THEN at + interval '365 days' END"
                        + " FROM (SELECT " + schema + ".durability_new_uuid7(at) AS id, at"
                        + " FROM (SELECT CAST(? AS timestamptz) + n * interval '1 second' AS at"
                        + " FROM generate_series(1, ?) n) t) r"
                        + " RETURNING CAST(id AS text)")) {
            insert.setString(1, state);
            insert.setString(2, state);
            insert.setString(3, state);
            insert.setString(4, start.toString());
            insert.setInt(5, rows);
            try (ResultSet inserted = insert.executeQuery()) {
                while (inserted.next()) {
                    ids.add(inserted.getString(1));
                }
            }
        }
        return ids;
    }

    /** The rows' partitions and states, one line per row in id order. */
    private String states(String schema, List<String> ids) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT string_agg(concat_ws(' ', id,"
                        + " published_at, unroutable_at, next_attempt_at, created_at), E'\\n' ORDER BY id)"
                        + " FROM " + schema + ".event_outbox WHERE id = ANY (CAST(? AS uuid[]))")) {
            s.setString(1, "{" + String.join(",", ids) + "}");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** The partitions of {@code table} holding the rows whose {@code key} is one of {@code ids}. */
    private List<String> partitionsHolding(String schema, String table, String key, List<String> ids)
            throws SQLException {
        List<String> partitions = new java.util.ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT DISTINCT tableoid::regclass::text FROM " + schema + "."
                        + table + " WHERE " + key + " = ANY (CAST(? AS uuid[]))")) {
            s.setString(1, "{" + String.join(",", ids) + "}");
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    partitions.add(rs.getString(1));
                }
            }
        }
        return partitions;
    }

    /**
     * Inbox rows of envelopes with UUIDv7 ids of seconds into the day {@code days} after {@code midnight}, each
     * received and processed {@code late} after its id's time; returns their ids.
     */
    private List<String> inboxDayRows(String schema, Instant midnight, int days, int rows, Duration late)
            throws SQLException {
        List<String> ids = new java.util.ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema + ".event_inbox"
                        + " (consumer_queue, envelope_id, source_service, event_type, received_at, processed_at)"
                        + " SELECT 'retention.day', id, 'retention-it', 'retention.day', received, received"
                        + " FROM (SELECT " + schema
                        + ".durability_new_uuid7(at) AS id, at + ? * interval '1 second' AS received"
                        + " FROM (SELECT CAST(? AS timestamptz) + n * interval '1 second' AS at"
                        + " FROM generate_series(1, ?) n) t) r RETURNING CAST(envelope_id AS text)")) {
            insert.setLong(1, late.toSeconds());
            insert.setString(2, midnight.plus(Duration.ofDays(days)).toString());
            insert.setInt(3, rows);
            try (ResultSet inserted = insert.executeQuery()) {
                while (inserted.next()) {
                    ids.add(inserted.getString(1));
                }
            }
        }
        return ids;
    }

    /** The inbox rows of these envelopes, one line per row in id order. */
    private String inboxStates(String schema, List<String> ids) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT string_agg(CAST(i AS text), E'\\n' ORDER BY" + " envelope_id) FROM "
                                + schema + ".event_inbox i WHERE envelope_id = ANY (CAST(? AS uuid[]))")) {
            s.setString(1, "{" + String.join(",", ids) + "}");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private List<String> partitions(String schema, String table) throws SQLException {
        List<String> partitions = new java.util.ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT c.relname FROM pg_inherits i"
                        + " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = CAST(? AS regclass)")) {
            s.setString(1, schema + "." + table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    partitions.add(rs.getString(1));
                }
            }
        }
        return partitions;
    }

    private double droppedPartitions(String schema, String table) {
        return registry
                .getCounters((id, metric) -> id.getName().equals("durability_retention_dropped_partitions")
                        && schema.equals(id.getTags().get("schema"))
                        && table.equals(id.getTags().get("table")))
                .values()
                .stream()
                .mapToDouble(counter -> counter.getCount())
                .sum();
    }

    private double keptPartitions(String schema, String table) {
        return registry
                .getGauges((id, metric) -> id.getName().equals("durability_retention_kept_partitions")
                        && schema.equals(id.getTags().get("schema"))
                        && table.equals(id.getTags().get("table")))
                .values()
                .stream()
                .findFirst()
                .orElseThrow(() -> new AssertionError("no kept-partitions gauge for " + schema + "." + table))
                .getValue()
                .doubleValue();
    }

    private long count(String schema, String table, String where) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + "." + table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void outbox(int rows, double daysOld, String state) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + S
                        + "event_outbox (id, event_type, envelope, created_at, published_at, unroutable_at, next_attempt_at) "
                        + "SELECT id, 'retention.tested', jsonb_build_object('id', id, 'event_type', 'retention.tested'), "
                        + "now() - ? * interval '1 day', "
                        + "CASE WHEN ? = 'published' THEN now() - ? * interval '1 day' + interval '1 minute' END, "
                        + "CASE WHEN ? = 'unroutable' THEN now() END, "
                        // pending rows are due in a year: no drain claims them meanwhile
                        + "CASE WHEN ? = 'pending' THEN now() + interval '365 days' END "
                        + "FROM (SELECT " + S + "durability_new_uuid7(now() - ? * interval '1 day')"
                        + " AS id FROM generate_series(1, ?)) s")) {
            insert.setDouble(1, daysOld);
            insert.setString(2, state);
            insert.setDouble(3, daysOld);
            insert.setString(4, state);
            insert.setString(5, state);
            insert.setDouble(6, daysOld);
            insert.setInt(7, rows);
            insert.executeUpdate();
        }
    }

    private void inbox(int rows, double daysOld) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + S
                        + "event_inbox (consumer_queue, envelope_id, source_service, event_type, received_at, processed_at) "
                        + "SELECT 'retention.queue', " + S
                        + "durability_new_uuid7(now() - ? * interval '1 day'), 'tests', "
                        + "'retention.tested', now() - ? * interval '1 day', now() - ? * interval '1 day' "
                        + "FROM generate_series(1, ?)")) {
            insert.setDouble(1, daysOld);
            insert.setDouble(2, daysOld);
            insert.setDouble(3, daysOld);
            insert.setInt(4, rows);
            insert.executeUpdate();
        }
    }

    private void deadLetters(int rows, int daysOld) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO " + S
                        + "dead_letter_audit (reason, path, raw_bytes, dlq_received_at) "
                        + "SELECT 'tested', 'unknown', '\\x00'::bytea, now() - ? * interval '1 day' "
                        + "FROM generate_series(1, ?)")) {
            insert.setInt(1, daysOld);
            insert.setInt(2, rows);
            insert.executeUpdate();
        }
    }

    private void idempotency(int rows, String expiresAt) throws SQLException {
        execute("INSERT INTO " + S + "idempotency_responses (cache_key, body_fingerprint, state, claim_generation, "
                + "method, path, claimed_at, claim_expires_at, expires_at, finalized_at, response_status) "
                + "SELECT sha256(gen_random_uuid()::text::bytea), sha256(''::bytea), 'failed', "
                + "nextval('" + S + "idempotency_claim_generation'), 'POST', '/tested', now(), now(), " + expiresAt
                + ", now(), 500 FROM generate_series(1, " + rows + ")");
    }

    /** Retention locks any session holds (released ones are gone from pg_locks). */
    private long heldRetentionLocks() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 1146242388")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** This schema's overdue gauge of the table, as /metrics would show it. */
    private double overdueGauge(String table) {
        return registry
                .getGauges((id, metric) -> id.getName().equals("durability_retention_overdue")
                        && LibraryDeployment.SCHEMA.equals(id.getTags().get("schema"))
                        && table.equals(id.getTags().get("table")))
                .values()
                .stream()
                .findFirst()
                .orElseThrow(() -> new AssertionError("no overdue gauge for " + table))
                .getValue()
                .doubleValue();
    }

    private long count(String table, String where) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + S + table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private double number(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Map<String, TablePruning> byTable(List<TablePruning> run) {
        return run.stream().collect(Collectors.toMap(TablePruning::table, Function.identity()));
    }
}
