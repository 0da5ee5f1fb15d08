package dev.colossal.bench.ipc;

import java.nio.file.Path;

/**
 * The consumer process of the throughput benchmark: {@code ConsumerMain RING CAPACITY SIZE PATH}.
 * Reads in batches, yielding when idle, until its parent (the JMH fork) is gone or kills it.
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
            System.out.println("READY");
            System.out.flush();
            long idle = 0;
            long[] sum = {0};
            java.util.function.LongConsumer sink = v -> sum[0] += v;
            while (true) {
                if (pipe.poll(sink) == 0) {
                    Thread.yield();
                    if ((++idle & 0xFFFF) == 0 && !parent.isAlive()) {
                        return;
                    }
                }
            }
        }
    }
}
