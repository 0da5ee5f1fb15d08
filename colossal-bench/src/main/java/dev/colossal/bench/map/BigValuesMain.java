package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * lmdbjava's second workload, filled once: {@code entries} random int keys with {@code valueSize}-byte
 * values in one store, then timed loops of gets, overwrites and delete-and-put-backs at keys drawn at
 * random (a data set larger than the page cache has no hot insertion order to walk), and one full
 * iteration. JMH forks would refill the tens of GB before every case; here each store fills once, in a
 * JVM of its own. Prints one line of {@code key=value} pairs: nanoseconds per fill put, get, put and
 * delete, milliseconds per full pass, and the bytes the store's files take on disk; then, for the
 * fill and each timed loop, the thread's CPU nanoseconds (all, and in the kernel) and the process's minor and major page faults per
 * operation ({@code putCpuNs}, {@code putMinflt}, ...): figures a loaded machine moves far less than
 * wall time.
 *
 * <p>Usage: {@code BigValuesMain STORE ENTRIES VALUE_SIZE OPS}
 */
public final class BigValuesMain {

    private BigValuesMain() {}

    /**
     * @param args store name (as {@link Store#create}), entries, value size, timed operations per loop
     * @throws Exception if the store fails
     */
    public static void main(String[] args) throws Exception {
        String store = args[0];
        int entries = Integer.parseInt(args[1]);
        int valueSize = Integer.parseInt(args[2]);
        int ops = Integer.parseInt(args[3]);
        Path dir = Files.createTempDirectory("colossal-bench-big");
        try (Store s = Store.create(store, dir, entries, valueSize)) {
            int[] keys = new int[entries];
            byte[] value = new byte[valueSize];
            new SplittableRandom(1).nextBytes(value);
            SplittableRandom rnd = new SplittableRandom(42);
            StringBuilder costs = new StringBuilder();
            Cost fillCost = new Cost();
            long t0 = System.nanoTime();
            for (int i = 0; i < entries; i++) {
                keys[i] = rnd.nextInt();
                value[0] = (byte) i;
                s.put(keys[i], value);
                if ((i & 0xFFFFF) == 0xFFFFF) {
                    System.err.printf(Locale.ROOT, "%s: %,d of %,d filled%n", store, i + 1, entries);
                }
            }
            double fill = (System.nanoTime() - t0) / (double) entries;
            fillCost.append(costs, "fill", entries);
            double get = timed(keys, ops, costs, "get", k -> {
                if (s.get(k) != valueSize) {
                    throw new IllegalStateException(store + ": key " + k + " lost its value");
                }
            });
            double put = timed(keys, ops, costs, "put", k -> s.put(k, value));
            double delete = timed(keys, ops / 4, costs, "delete", k -> {
                s.remove(k);
                s.put(k, value);
            });
            long t1 = System.nanoTime();
            long sum = s.iterate();
            double iterate = (System.nanoTime() - t1) / 1e6;
            if (sum % valueSize != 0 || sum == 0) {
                throw new IllegalStateException(store + ": iteration saw " + sum + " value bytes");
            }
            System.out.printf(Locale.ROOT, "fillNs=%.1f getNs=%.1f putNs=%.1f deleteNs=%.1f iterateMs=%.1f "
                    + "diskBytes=%d%s%n", fill, get, put, delete, iterate, Dirs.allocatedBytes(dir), costs);
        } finally {
            Dirs.deleteTree(dir);
        }
    }

    private interface KeyOp {
        void apply(int key) throws Exception;
    }

    /**
     * Nanoseconds per {@code op} at random keys: a quarter as many untimed first, to warm the path.
     * Appends the CPU time and page faults per op to {@code costs}, named after {@code name}.
     */
    private static double timed(int[] keys, int ops, StringBuilder costs, String name, KeyOp op) throws Exception {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < ops / 4; i++) {
            op.apply(keys[r.nextInt(keys.length)]);
        }
        System.err.printf(Locale.ROOT, "%s loop: %,d timed ops%n", name, ops);
        Cost cost = new Cost();
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            op.apply(keys[r.nextInt(keys.length)]);
        }
        double wall = (System.nanoTime() - start) / (double) ops;
        cost.append(costs, name, ops);
        return wall;
    }

    /** The thread's CPU time and the process's page faults from its creation on. */
    private static final class Cost {
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        private final long[] faults = faults();
        private final long cpu = threads.getCurrentThreadCpuTime();
        private final long user = threads.getCurrentThreadUserTime();

        Cost() throws IOException {}

        /** Appends CPU ns (all, and in the kernel) and minor and major faults per op since creation. */
        void append(StringBuilder costs, String name, int ops) throws IOException {
            long cpuNow = threads.getCurrentThreadCpuTime() - cpu;
            long userNow = threads.getCurrentThreadUserTime() - user;
            long[] after = faults();
            costs.append(String.format(Locale.ROOT, " %sCpuNs=%.1f %sSysNs=%.1f %sMinflt=%.3f %sMajflt=%.3f",
                    name, cpuNow / (double) ops, name, (cpuNow - userNow) / (double) ops,
                    name, (after[0] - faults[0]) / (double) ops, name, (after[1] - faults[1]) / (double) ops));
        }
    }

    /** The process's minor and major page faults so far, from {@code /proc/self/stat} (zeros elsewhere). */
    private static long[] faults() throws IOException {
        Path stat = Path.of("/proc/self/stat");
        if (!Files.exists(stat)) {
            return new long[2];
        }
        String line = Files.readString(stat);
        // Fields after the parenthesised command name: state is field 3, minflt 10, majflt 12.
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[7]), Long.parseLong(f[9])};
    }
}
