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
 * and prints percentiles of all but the first tenth. The two threads are pinned as in the
 * throughput benchmark ({@link Pinning}).
 */
public final class LatencyMain {

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
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, false)) {
            Pinning.pin(Pinning.threadId(), Pinning.PRODUCER_CPU);
            long next = System.nanoTime();
            for (int i = 0; i < count; i++) {
                next += interval;
                long now;
                while ((now = System.nanoTime()) < next) {
                    if (next - now > 50_000) {
                        LockSupport.parkNanos(next - now - 50_000);
                    } else {
                        Thread.onSpinWait();
                    }
                }
                while (!pipe.offer(System.nanoTime())) {
                    Thread.yield();
                }
            }
        }
    }

    private static void consume(String ring, int size, Path path, int count) throws Exception {
        long[] latency = new long[count];
        int[] n = {0};
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, true)) {
            Pinning.pin(Pinning.threadId(), Pinning.CONSUMER_CPU);
            System.out.println("READY");
            System.out.flush();
            java.util.function.LongConsumer record = stamp -> latency[n[0]++] = System.nanoTime() - stamp;
            while (n[0] < count) {
                if (pipe.poll(record) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
        int skip = count / 10;
        long[] s = Arrays.copyOfRange(latency, skip, count);
        Arrays.sort(s);
        int len = s.length;
        System.out.printf(Locale.ROOT, "p50=%dns p99=%dns p99.9=%dns max=%dns%n", s[(int) ((len - 1) * 0.5)],
                s[(int) ((len - 1) * 0.99)], s[(int) ((len - 1) * 0.999)], s[len - 1]);
    }
}
