package dev.colossal.bench.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Why a throughput round is fast or slow: {@code RingProbeMain RING SIZE SECONDS [WINDOW_MS [same]]}.
 * Runs the benchmark's producer loop against a {@link ConsumerMain} process and prints, per
 * window, the messages per second, how often the ring was full, the CPU each side last ran on
 * and how long the two waited for a CPU (share of the window), then both threads' context
 * switches and a {@code RESULT} line: the median of the windows (after a second of warm-up) in
 * which neither side waited for its CPU, and of all windows; {@code ./colossal bench ipc} runs it. The threads are placed as the benchmark places them
 * ({@link Pinning}); {@code same} then moves the consumer to the producer's CPU, the slow mode of
 * an unpinned run.
 */
public final class RingProbeMain {

    /** Windows in the first second are the JIT's, not the ring's. */
    private static final long WARMUP_NANOS = 1_000_000_000L;
    /**
     * A window counts as undisturbed if the two threads together waited for a CPU less than this
     * share of it: measured, windows above it ran up to 2x slower, windows below it within a few %.
     */
    static final double MAX_WAIT = 0.02;

    private RingProbeMain() {}

    /**
     * Probes one ring.
     *
     * @param args ring kind, message bytes, seconds, window milliseconds (100), {@code same}
     * @throws Exception if the ring or the consumer cannot be started
     */
    public static void main(String[] args) throws Exception {
        String ring = args[0];
        int size = Integer.parseInt(args[1]);
        long seconds = Long.parseLong(args[2]);
        long window = (args.length > 3 ? Long.parseLong(args[3]) : 100) * 1_000_000L;
        Path path = Path.of("/dev/shm", "colossal-ring-probe-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, true)) {
            ConsumerProcess consumer = ConsumerProcess.start(ring, size, path);
            Path self = Pinning.currentTask();
            Path other = consumer.task();
            Pinning.pin(self.getFileName().toString(), Pinning.PRODUCER_CPU);
            if (args.length > 4 && args[4].equals("same")) {
                Pinning.pin(consumer.threadId(), Pinning.PRODUCER_CPU);
            }
            System.out.println(Pinning.describe() + (args.length > 4 ? ", then " + args[4] : ""));
            long warm = System.nanoTime() + WARMUP_NANOS;
            long end = warm + seconds * 1_000_000_000L;
            List<Double> all = new ArrayList<>();
            List<Double> undisturbed = new ArrayList<>();
            while (System.nanoTime() < end) {
                long waitBefore = Pinning.runQueueWait(self) + Pinning.runQueueWait(other);
                long start = System.nanoTime();
                long stop = start + window;
                long sent = 0;
                long full = 0;
                long now;
                do {
                    for (int i = 0; i < 256; i++) {
                        while (!pipe.offer()) {
                            full++;
                            Pinning.idle();
                        }
                    }
                    sent += 256;
                } while ((now = System.nanoTime()) < stop);
                long waited = Pinning.runQueueWait(self) + Pinning.runQueueWait(other) - waitBefore;
                double rate = sent * 1e3 / (now - start);
                if (start > warm) {
                    all.add(rate);
                    if (waited < (now - start) * MAX_WAIT) {
                        undisturbed.add(rate);
                    }
                }
                System.out.printf(Locale.ROOT, "%7.2f M msg/s  full=%-8d cpu producer=%s consumer=%s run-queue wait=%.1f%%%n",
                        rate, full, Pinning.lastCpu(self), Pinning.lastCpu(other),
                        100.0 * waited / (now - start));
            }
            System.out.println("producer " + switches(self) + "; consumer " + switches(other));
            System.out.printf(Locale.ROOT, "RESULT undisturbed=%d windows=%d median=%.3f all=%.3f%n", undisturbed.size(),
                    all.size(), median(undisturbed), median(all));
            consumer.stop();
        } finally {
            Files.deleteIfExists(path);
        }
    }

    /** {@return the median, NaN for none} */
    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String switches(Path task) throws IOException {
        return Files.readAllLines(task.resolve("status")).stream().filter(l -> l.contains("ctxt_switches"))
                .map(l -> l.replaceAll("\\s+", " ")).reduce((a, b) -> a + " " + b).orElse("");
    }
}
