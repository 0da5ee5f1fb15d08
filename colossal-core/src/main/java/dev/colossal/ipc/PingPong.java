package dev.colossal.ipc;

import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Two processes take turns incrementing one shared counter: the odd role turns even values odd,
 * the even role turns odd values even. Each role times the round trip from its own write to the
 * other's answer. This is the floor of any shared-memory protocol: one cache line crossing
 * between two cores and back.
 *
 * <p>Payload layout of a {@link RegionKind#PING_PONG} region (the C program in
 * {@code colossal-bench/src/main/c/pingpong.c} uses the same):
 * <pre>
 *   0                 8                                       128
 *   +-----------------+------------- ... ---------------------+
 *   | counter (long)  | unused, keeps the line to itself      |
 *   +-----------------+------------- ... ---------------------+
 * </pre>
 *
 * <p>A session of {@code rounds} round trips: the odd role sets the counter to 0 (volatile), then
 * for each round {@code i} moves it from {@code 2i} to {@code 2i + 1} by compare-and-set and waits
 * (acquire) for {@code 2i + 2}. The even role waits for {@code 1}, then for each round moves
 * {@code 2i + 1} to {@code 2i + 2} and waits for {@code 2i + 3}, except after the last. Start the
 * two roles in either order on a fresh region, or odd first on a used one.
 */
public final class PingPong {

    /** Which side of the exchange this process plays. */
    public enum Role {
        /** Starts each round: turns even values odd. */
        ODD,
        /** Answers each round: turns odd values even. */
        EVEN
    }

    /** Payload offset of the counter. */
    static final long COUNTER_OFFSET = 0;
    /** Payload size of a ping-pong region: the counter on a 128-byte line of its own. */
    public static final long PAYLOAD_SIZE = 128;
    /** Spins (~100 us) before a wait for the other side yields the core at each look (see {@link #awaitValue}). */
    private static final int SPINS_BEFORE_YIELDING = 1 << 12;

    private PingPong() {}

    /**
     * Opens the ping-pong region.
     *
     * @param path the region file, e.g. {@code SharedRegion.shm("pingpong")}
     * @return the ping-pong region at {@code path}, created if absent
     * @throws IpcException if the file is another kind of region
     */
    public static SharedRegion openRegion(Path path) {
        return SharedRegion.openOrCreate(path, RegionKind.PING_PONG, PAYLOAD_SIZE);
    }

    /**
     * Plays one session and reports every round trip's time.
     *
     * @param region a {@link RegionKind#PING_PONG} region
     * @param role   this process's role
     * @param rounds round trips to make, at least 1; both roles must use the same number
     * @param rtt    receives each round trip's time in nanoseconds, in order; the first ones
     *               include waiting for the other process to start
     * @throws IllegalArgumentException if the region is of another kind or {@code rounds < 1}
     */
    public static void play(SharedRegion region, Role role, int rounds, LongConsumer rtt) {
        if (region.kind() != RegionKind.PING_PONG) {
            throw new IllegalArgumentException("region kind=" + region.kind() + " is not PING_PONG");
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds=" + rounds + " must be at least 1");
        }
        if (role == Role.ODD) {
            playOdd(region, rounds, rtt);
        } else {
            playEven(region, rounds, rtt);
        }
    }

    private static void playOdd(SharedRegion region, int rounds, LongConsumer rtt) {
        region.setLongVolatile(COUNTER_OFFSET, 0);
        for (long i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            if (!region.compareAndSetLong(COUNTER_OFFSET, 2 * i, 2 * i + 1)) {
                throw new IllegalStateException("counter=" + region.getLongVolatile(COUNTER_OFFSET)
                        + " where " + 2 * i + " was expected: a third process uses this region");
            }
            awaitValue(region, 2 * i + 2);
            rtt.accept(System.nanoTime() - start);
        }
    }

    private static void playEven(SharedRegion region, int rounds, LongConsumer rtt) {
        awaitValue(region, 1);
        for (long i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            if (!region.compareAndSetLong(COUNTER_OFFSET, 2 * i + 1, 2 * i + 2)) {
                throw new IllegalStateException("counter=" + region.getLongVolatile(COUNTER_OFFSET)
                        + " where " + (2 * i + 1) + " was expected: a third process uses this region");
            }
            if (i + 1 < rounds) {
                awaitValue(region, 2 * i + 3);
                rtt.accept(System.nanoTime() - start);
            }
        }
    }

    /**
     * Spins for the other side's answer, which takes a fraction of a microsecond while both run on
     * cores of their own. On a machine with more runnable threads than cores the other side may
     * wait for this one's core, and a pure spin then ended each round only at the scheduler's tick:
     * 20,000 rounds beside two busy processes on 2 cores took over two minutes. Past ~100 us of
     * spinning, each look yields the core first.
     */
    private static void awaitValue(SharedRegion region, long value) {
        for (int spins = 0; region.getLongAcquire(COUNTER_OFFSET) != value; spins++) {
            if (spins < SPINS_BEFORE_YIELDING) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
