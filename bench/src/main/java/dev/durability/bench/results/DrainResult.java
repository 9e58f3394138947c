package dev.durability.bench.results;

import java.util.List;

/**
 * The outbox drain: a backlog of {@code rows} drained by one, two and three servers, against RabbitMQ PerfTest's
 * confirmed publishes consumed as the drain's queue is, and PostgreSQL's commit rate, both measured in the same run.
 *
 * @param perfTestRate PerfTest's confirmed-publish rate, msg/s
 * @param commitsOne pgbench's one-row insert commits per second, one connection
 * @param commitsFour the same through four connections
 * @param serverRssMiB the first server's resident memory after its drain
 * @param publishLagP95Seconds the seeded rows' p95 from staging to stamp in the one-server drain
 * @param oneServerProfile the first server's database round trips in one more one-server drain
 * @param twoServerProfile the first server's database round trips in one more two-server drain
 * @param samples the first server's CPU samples during the one-server drain
 * @param steps where the first server's batches spent their time in the one-server drain, by its own metric; null in
 *     results of runs before it had one
 */
public record DrainResult(
        Machine machine,
        int rows,
        int batch,
        double perfTestRate,
        double commitsOne,
        double commitsFour,
        DrainRun oneServer,
        DrainRun twoServers,
        DrainRun threeServers,
        double serverRssMiB,
        double publishLagP95Seconds,
        DrainProfile oneServerProfile,
        DrainProfile twoServerProfile,
        CpuSamples samples,
        List<StepTime> steps) {

    /** One drain of the backlog: its rate, and what each process used of the machine meanwhile. */
    public record DrainRun(double rowsPerSecond, CpuShare cpu) {}

    /** The first server's database round trips in a drain: its claims' statements and commits, its stamps. */
    public record DrainProfile(
            RoundTrips claimStatements,
            RoundTrips claimCommits,
            RoundTrips stamps,
            RoundTrips all,
            double machineBusy) {}

    /** Execution samples of the server: their count, their leaf frames and the first frame of Durability's code. */
    public record CpuSamples(long count, List<FrameCount> leaves, List<FrameCount> ownFrames) {}
}
