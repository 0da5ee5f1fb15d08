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
 *
 * <p>What was left above p99 was the consumer losing its CPU: no GC and no safepoint in its
 * process during a run ({@code -Xlog:gc*,safepoint}), but its thread waited for a CPU for most of
 * a run at load 12, and one descheduling delays every message sent while it lasts. So the
 * consumer prints, besides percentiles of every message, those of the messages that arrived in
 * {@link Windows} in which it kept its CPU ({@code clean=} undisturbed/all windows, {@code cp50=},
 * {@code cp99=}), how long it waited for a CPU, how often it was preempted, and how many stalls
 * (runs of messages slower than {@value #STALL_NS} ns) held how many messages.
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
        long waited = 0;
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, false)) {
            Pinning.pin(Pinning.threadId(), Pinning.PRODUCER_CPU);
            Path self = Pinning.currentTask();
            // One loop for both phases, so that the measured one runs the code the warm-up compiled.
            long next = System.nanoTime();
            long gap = 0;
            for (int i = 0; i < WARMUP + count; i++) {
                if (i == WARMUP) {
                    Thread.sleep(100);
                    waited = -Pinning.runQueueWait(self);
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
            waited += Pinning.runQueueWait(self);
        }
        System.out.printf(Locale.ROOT, "sent=%d late=%d waited=%dus%n", count, late, waited / 1000);
    }

    private static void consume(String ring, int size, Path path, int count) throws Exception {
        long[] latency = new long[WARMUP + count];
        int[] n = {0};
        long[] waited = new long[2];
        long[] switches = new long[2];
        Windows windows;
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, true)) {
            Pinning.pin(Pinning.threadId(), Pinning.CONSUMER_CPU);
            Path self = Pinning.currentTask();
            windows = new Windows(self, () -> n[0]);
            System.out.println("READY");
            System.out.flush();
            java.util.function.LongConsumer record = stamp -> latency[n[0]++] = System.nanoTime() - stamp;
            boolean counting = false;
            while (n[0] < latency.length) {
                if (pipe.poll(record) == 0) {
                    Thread.onSpinWait();
                    // In the producer's pause after the warm-up: no message waits for this.
                    if (!counting && n[0] == WARMUP) {
                        counting = true;
                        waited[0] = Pinning.runQueueWait(self);
                        switches[0] = involuntarySwitches(self);
                        windows.start();
                    }
                }
            }
            windows.stop();
            waited[1] = Pinning.runQueueWait(self);
            switches[1] = involuntarySwitches(self);
        }
        long[] all = Arrays.copyOfRange(latency, WARMUP, latency.length);
        long[] stalls = stalls(all);
        long[] clean = windows.undisturbed(latency, WARMUP);
        Arrays.sort(all);
        Arrays.sort(clean);
        System.out.printf(Locale.ROOT, "p50=%dns p99=%dns p99.9=%dns max=%dns clean=%d/%d cp50=%dns cp99=%dns cp99.9=%dns"
                + " waited=%dus preempted=%d stalls=%d stalled=%d%n",
                at(all, 0.5), at(all, 0.99), at(all, 0.999), all[all.length - 1], windows.clean, windows.total,
                at(clean, 0.5), at(clean, 0.99), at(clean, 0.999),
                (waited[1] - waited[0]) / 1000, switches[1] - switches[0], stalls[0], stalls[1]);
    }

    private static long at(long[] sorted, double quantile) {
        return sorted.length == 0 ? -1 : sorted[(int) ((sorted.length - 1) * quantile)];
    }

    /** Above this a message waited for something else than the ring: a CPU, a safepoint. */
    static final long STALL_NS = 20_000;

    /**
     * {@return how many runs of consecutive messages took longer than {@link #STALL_NS}, and how
     * many messages they held}: one descheduling of the consumer delays every message sent
     * while it is away, so a handful of stalls can hold the 1% above p99.
     */
    private static long[] stalls(long[] latencies) {
        long runs = 0;
        long messages = 0;
        boolean in = false;
        for (long l : latencies) {
            boolean slow = l > STALL_NS;
            if (slow) {
                messages++;
                runs += in ? 0 : 1;
            }
            in = slow;
        }
        return new long[] {runs, messages};
    }

    /** {@return how often the thread lost its CPU while it could still run (/proc status)} */
    private static long involuntarySwitches(Path task) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return -1;
    }
}
