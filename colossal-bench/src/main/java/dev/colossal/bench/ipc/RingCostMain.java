package dev.colossal.bench.ipc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The CPU cost of one message through a ring, free of scheduling:
 * {@code RingCostMain RING SIZE WARMUP COUNT}. One thread writes a batch of messages, then reads
 * the batch back, on one mapping of a /dev/shm file, so nothing waits on another core. Run it
 * twice under {@code valgrind --tool=callgrind} with two counts: the difference of the two
 * instruction totals divided by the difference of the counts is instructions per message.
 * Without valgrind it prints ns per message (one core, no cross-core traffic).
 */
public final class RingCostMain {

    /**
     * Messages per write/read round: a batch the consumer drains at once. {@code -Dipc.cost.batch=1}
     * gives the cost of a fixed-rate message, which a consumer always reads alone.
     */
    static final int BATCH = Integer.getInteger("ipc.cost.batch", 64);

    /**
     * Polls of the empty ring after each batch ({@code -Dipc.cost.idle=N}): what a waiting consumer
     * spins on, and half of one is the average delay before it sees a message.
     */
    static final int IDLE = Integer.getInteger("ipc.cost.idle", 0);

    private static final long WARMUP_CALL = 20 * BATCH;

    private RingCostMain() {}

    /**
     * Runs WARMUP then COUNT messages.
     *
     * @param args ring kind (colossal-spsc, agrona-mpsc, ...), message bytes, warm-up messages, measured
     *             messages, and optionally the gate file
     * @throws Exception if the ring cannot be mapped
     */
    public static void main(String[] args) throws Exception {
        String ring = args[0];
        int size = Integer.parseInt(args[1]);
        long warmup = Long.parseLong(args[2]);
        long count = Long.parseLong(args[3]);
        Path path = Path.of("/dev/shm", "colossal-ring-cost-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        try (Pipe pipe = Pipe.open(ring, Pipe.CAPACITY, size, path, true)) {
            long[] sum = {0};
            java.util.function.LongConsumer sink = v -> sum[0] += v;
            Path gate = args.length > 4 ? Path.of(args[4]) : null;
            // Many short calls, not one long one: run() must be compiled as a whole method, and
            // with every branch taken, or the measured call deoptimises on entry. The gate's file
            // check is warmed too, so that no compilation falls in the measured part.
            for (long done = 0; done < warmup; done += WARMUP_CALL) {
                run(pipe, sink, WARMUP_CALL);
                if (gate != null && Files.exists(gate)) {
                    throw new IllegalStateException(gate + " exists before the warm-up ended");
                }
            }
            await(gate, "WARM", gate);
            long start = System.nanoTime();
            run(pipe, sink, count);
            long elapsed = System.nanoTime() - start;
            await(gate, "DONE", gate == null ? null : Path.of(gate + ".done"));
            System.out.printf(Locale.ROOT, "%s size=%d messages=%d ns/msg=%.2f check=%d%n", ring, size, count,
                    (double) elapsed / Math.max(1, count), sum[0]);
        } finally {
            Files.deleteIfExists(path);
        }
    }

    /** Tells the driver where we are and sleeps until it creates {@code file}. */
    private static void await(Path gate, String stage, Path file) throws InterruptedException {
        if (gate == null) {
            return;
        }
        System.out.println(stage);
        System.out.flush();
        while (!Files.exists(file)) {
            Thread.sleep(1);
        }
    }

    static void run(Pipe pipe, java.util.function.LongConsumer sink, long messages) {
        for (long done = 0; done < messages; done += BATCH) {
            for (int i = 0; i < BATCH; i++) {
                if (!pipe.offer()) {
                    throw new IllegalStateException("ring full with " + i + " messages of one batch");
                }
            }
            int read = 0;
            while (read < BATCH) {
                read += pipe.poll(sink);
            }
            for (int i = 0; i < IDLE; i++) {
                if (pipe.poll(sink) != 0) {
                    throw new IllegalStateException("a message in a drained ring");
                }
            }
        }
    }
}
