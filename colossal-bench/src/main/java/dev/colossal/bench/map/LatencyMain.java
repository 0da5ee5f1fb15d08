package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Read and write latency at a fixed rate, in the shape of Chronicle Map's own latency test: one
 * thread, {@code entries} keys visited in order, one operation every {@code 1/rate} seconds by a
 * busy-waiting scheduler, and every operation timed from the moment it was <em>meant</em> to start.
 * An operation that stalls therefore also charges the ones queued behind it (no coordinated
 * omission). Values are 8 bytes, int keys. Prints one line of {@code op.pNN=nanoseconds} pairs.
 *
 * <p>Usage: {@code LatencyMain STORE ENTRIES RATE SECONDS}
 */
public final class LatencyMain {

    private static final int VALUE_BYTES = 8;

    private LatencyMain() {}

    /**
     * @param args store name, entries, operations per second, seconds measured per operation
     * @throws Exception if the store fails
     */
    public static void main(String[] args) throws Exception {
        String store = args[0];
        int entries = Integer.parseInt(args[1]);
        int rate = Integer.parseInt(args[2]);
        double seconds = Double.parseDouble(args[3]);
        Path dir = Files.createTempDirectory("colossal-bench-latency");
        StringBuilder line = new StringBuilder();
        try (Store s = Store.create(store, dir, entries, VALUE_BYTES)) {
            byte[] value = new byte[VALUE_BYTES];
            for (int k = 0; k < entries; k++) {
                s.put(k, value);
            }
            for (String op : new String[] {"get", "put"}) {
                paced(s, op, entries, rate, Math.min(seconds, 2), value);    // warm-up, discarded
                Histogram h = paced(s, op, entries, rate, seconds, value);
                line.append(String.format(Locale.ROOT, "%s.p50=%d %s.p99=%d %s.p99.9=%d %s.p99.99=%d %s.max=%d %s.count=%d ",
                        op, h.getValueAtPercentile(50), op, h.getValueAtPercentile(99), op, h.getValueAtPercentile(99.9),
                        op, h.getValueAtPercentile(99.99), op, h.getMaxValue(), op, h.getTotalCount()));
            }
        } finally {
            Dirs.deleteTree(dir);
        }
        System.out.println(line.toString().trim());
    }

    private static Histogram paced(Store s, String op, int entries, int rate, double seconds, byte[] value) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long count = (long) (rate * seconds);
        boolean get = op.equals("get");
        int sink = 0;
        long intended = System.nanoTime();
        for (long i = 0; i < count; i++) {
            while (System.nanoTime() < intended) {
                Thread.onSpinWait();
            }
            int k = (int) (i % entries);
            if (get) {
                sink += s.get(k);
            } else {
                value[0] = (byte) i;
                s.put(k, value);
            }
            h.recordValue(Math.min(System.nanoTime() - intended, h.getHighestTrackableValue()));
            intended += interval;
        }
        if (sink == 42) {
            System.err.print("");    // keeps the gets from being optimised away
        }
        return h;
    }
}
