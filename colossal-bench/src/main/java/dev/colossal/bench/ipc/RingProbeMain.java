package dev.colossal.bench.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Why a throughput round is fast or slow: {@code RingProbeMain RING SIZE SECONDS [WINDOW_MS [PIN]]}.
 * Runs the benchmark's producer loop against a {@link ConsumerMain} process and prints, per
 * window, the messages per second, how often the ring was full, and the CPU each side last ran
 * on ({@code /proc/.../stat} field 39), then both threads' context switches. PIN {@code same} puts
 * both threads on CPU 0, {@code split} the producer on 0 and the consumer on 1 (taskset).
 */
public final class RingProbeMain {

    private RingProbeMain() {}

    /**
     * Probes one ring.
     *
     * @param args ring kind, message bytes, seconds, window milliseconds (100)
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
            Path self = Path.of("/proc/self/task", Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
            Path other = Path.of("/proc", String.valueOf(consumer.process().pid()), "task", consumer.threadId());
            String pin = args.length > 4 ? args[4] : "none";
            if (!pin.equals("none")) {
                taskset(self, "0");
                taskset(other, pin.equals("same") ? "0" : "1");
            }
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
                            Thread.yield();
                        }
                    }
                    sent += 256;
                } while ((now = System.nanoTime()) < stop);
                System.out.printf(Locale.ROOT, "%7.2f M msg/s  full=%-8d cpu producer=%s consumer=%s%n",
                        sent * 1e3 / (now - start), full, cpu(self), cpu(other));
            }
            System.out.println("producer " + switches(self) + "; consumer " + switches(other));
            consumer.stop();
        } finally {
            Files.deleteIfExists(path);
        }
    }

    /** Pins one thread to one CPU. */
    static void taskset(Path task, String cpu) throws Exception {
        Process p = new ProcessBuilder("taskset", "-p", "-c", cpu, task.getFileName().toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("taskset -p -c " + cpu + " " + task.getFileName() + " failed");
        }
    }

    /** The CPU the thread last ran on: field 39 of its stat line, counted after the command's ")". */
    static String cpu(Path task) throws IOException {
        String stat = Files.readString(task.resolve("stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36];
    }

    private static String switches(Path task) throws IOException {
        return Files.readAllLines(task.resolve("status")).stream().filter(l -> l.contains("ctxt_switches"))
                .map(l -> l.replaceAll("\\s+", " ")).reduce((a, b) -> a + " " + b).orElse("");
    }
}
