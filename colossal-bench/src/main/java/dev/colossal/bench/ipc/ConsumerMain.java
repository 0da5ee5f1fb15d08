package dev.colossal.bench.ipc;

import java.nio.file.Path;

/**
 * The consumer process of the throughput benchmark: {@code ConsumerMain RING CAPACITY SIZE PATH}.
 * Reads in batches, idling as {@link Pinning#idle()} says, until its parent (the JMH fork) is gone or kills it.
 * Prints {@code READY <thread id>} once the ring is open (the id lets the parent see which CPU
 * this thread runs on) and, when stopped, how many polls found nothing.
 */
public final class ConsumerMain {

    private ConsumerMain() {}

    /**
     * Consumes until stopped.
     *
     * @param args ring kind, capacity, message size, region path
     * @throws Exception if the ring cannot be opened
     */
    public static void main(String[] args) throws Exception {
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        try (Pipe pipe = Pipe.open(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]), Path.of(args[3]), false)) {
            long[] counts = new long[3]; // polls, empty polls, messages
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.printf(
                    "consumer: polls=%d empty=%d messages=%d%n", counts[0], counts[1], counts[2])));
            System.out.println("READY " + Pinning.threadId());
            System.out.flush();
            long[] sum = {0};
            java.util.function.LongConsumer sink = v -> sum[0] += v;
            while (true) {
                counts[0]++;
                int n = pipe.poll(sink);
                counts[2] += n;
                if (n == 0) {
                    Pinning.idle();
                    if ((++counts[1] & 0xFFFF) == 0 && !parent.isAlive()) {
                        return;
                    }
                }
            }
        }
    }
}
