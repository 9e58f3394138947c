package dev.durability.bench.load;

/**
 * When the events of an open-loop load are due (nanoTime): one every {@code interval} from {@code start} to {@code
 * end}, counted from {@code measured} on. The load runs its warm-up before the measured part through the same
 * connections and consumer, so the figures are the steady state's, not the load client's own start.
 */
public record Schedule(long start, long measured, long interval, long end) {

    public static Schedule of(int rate, int warmUpSeconds, int seconds) {
        long start = System.nanoTime();
        long measured = start + warmUpSeconds * 1_000_000_000L;
        return new Schedule(start, measured, 1_000_000_000L / rate, measured + seconds * 1_000_000_000L);
    }

    /** Sleeps until {@code due} (nanoTime). */
    public static void sleepUntil(long due) throws InterruptedException {
        long wait = due - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }
}
