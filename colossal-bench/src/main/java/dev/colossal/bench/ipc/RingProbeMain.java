package dev.colossal.bench.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Why a throughput round is fast or slow: {@code RingProbeMain RING SIZE SECONDS [WINDOW_MS [same]]}.
 * Runs the benchmark's producer loop against a {@link ConsumerMain} process and prints, per
 * window, the messages per second, how often the ring was full, and the CPU each side last ran
 * on, then both threads' context switches. The threads are placed as the benchmark places them
 * ({@link Pinning}); {@code same} then moves the consumer to the producer's CPU, the slow mode of
 * an unpinned run.
 */
public final class RingProbeMain {

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
        try (Pipe pipe = Pipe.open(ring, RingThroughputBench.CAPACITY, size, path, true)) {
            ConsumerProcess consumer = ConsumerProcess.start(ring, size, path);
            Path self = Pinning.currentTask();
            Path other = consumer.task();
            Pinning.pin(self.getFileName().toString(), Pinning.PRODUCER_CPU);
            if (args.length > 4 && args[4].equals("same")) {
                Pinning.pin(consumer.threadId(), Pinning.PRODUCER_CPU);
            }
            System.out.println(Pinning.describe() + (args.length > 4 ? ", then " + args[4] : ""));
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
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
                System.out.printf(Locale.ROOT, "%7.2f M msg/s  full=%-8d cpu producer=%s consumer=%s%n",
                        sent * 1e3 / (now - start), full, Pinning.lastCpu(self), Pinning.lastCpu(other));
            }
            System.out.println("producer " + switches(self) + "; consumer " + switches(other));
            consumer.stop();
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private static String switches(Path task) throws IOException {
        return Files.readAllLines(task.resolve("status")).stream().filter(l -> l.contains("ctxt_switches"))
                .map(l -> l.replaceAll("\\s+", " ")).reduce((a, b) -> a + " " + b).orElse("");
    }
}
