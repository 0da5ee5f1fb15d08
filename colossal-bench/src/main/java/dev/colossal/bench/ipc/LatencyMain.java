package dev.colossal.bench.ipc;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * One-way latency through a ring between two processes at a fixed rate:
 * {@code LatencyMain produce|consume RING SIZE PATH COUNT RATE}. The producer stamps each message
 * with {@link System#nanoTime()} (CLOCK_MONOTONIC, the same clock in every process) and sends
 * RATE messages per second; the consumer, which creates the ring, records arrival minus stamp
 * and prints percentiles of them all. The two threads are pinned as in the throughput benchmark
 * ({@link Pinning}).
 *
 * <p>Two things made a loaded machine measure something else than latency at a rate, and both
 * are the same for either library. The first tenth of the run (0.2 s) was the only warm-up, and
 * under load the JIT was still compiling, and recompiling after the first full ring, wrap or
 * long batch, for longer than that: so first {@value #WARMUP} messages, not counted, go as fast as
 * the ring takes them (every path taken, through the same code as the measured ones), then a pause. And a producer that lost its CPU caught
 * up with its schedule by sending back to back, so most of a loaded run was a burst whose
 * latency was the queue: now a send that is late starts the schedule again from the time it
 * went, and the producer prints how many were late.
 */
public final class LatencyMain {

    /** Unstamped messages before the measured ones. */
    static final int WARMUP = 100_000;

    private LatencyMain() {}

    /**
     * Plays one side.
     *
     * @param args side, ring kind, message size, region path, message count, messages per second
     * @throws Exception if the ring cannot be opened
     */
    public static void main(String[] args) throws Exception {
        String ring = args[1];
        int size = Integer.parseInt(args[2]);
        Path path = Path.of(args[3]);
        int count = Integer.parseInt(args[4]);
        long interval = 1_000_000_000L / Long.parseLong(args[5]);
        if (args[0].equals("consume")) {
            consume(ring, size, path, count);
        } else {
            produce(ring, size, path, count, interval);
        }
    }

    private static void produce(String ring, int size, Path path, int count, long interval) throws Exception {
        int late = 0;
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, false)) {
            Pinning.pin(Pinning.threadId(), Pinning.PRODUCER_CPU);
            // One loop for both phases, so that the measured one runs the code the warm-up compiled.
            long next = System.nanoTime();
            long gap = 0;
            for (int i = 0; i < WARMUP + count; i++) {
                if (i == WARMUP) {
                    Thread.sleep(100);
                    next = System.nanoTime();
                    gap = interval;
                }
                next += gap;
                long now;
                while ((now = System.nanoTime()) < next) {
                    if (next - now > 50_000) {
                        LockSupport.parkNanos(next - now - 50_000);
                    } else {
                        Thread.onSpinWait();
                    }
                }
                if (now - next > gap && gap != 0) {
                    late++;
                    next = now;
                }
                while (!pipe.offer(System.nanoTime())) {
                    Thread.yield();
                }
            }
        }
        System.out.printf(Locale.ROOT, "sent=%d late=%d%n", count, late);
    }

    private static void consume(String ring, int size, Path path, int count) throws Exception {
        long[] latency = new long[WARMUP + count];
        int[] n = {0};
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, true)) {
            Pinning.pin(Pinning.threadId(), Pinning.CONSUMER_CPU);
            System.out.println("READY");
            System.out.flush();
            java.util.function.LongConsumer record = stamp -> latency[n[0]++] = System.nanoTime() - stamp;
            while (n[0] < latency.length) {
                if (pipe.poll(record) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
        long[] s = Arrays.copyOfRange(latency, WARMUP, latency.length);
        Arrays.sort(s);
        int len = s.length;
        System.out.printf(Locale.ROOT, "p50=%dns p99=%dns p99.9=%dns max=%dns%n", s[(int) ((len - 1) * 0.5)],
                s[(int) ((len - 1) * 0.99)], s[(int) ((len - 1) * 0.999)], s[len - 1]);
    }
}
