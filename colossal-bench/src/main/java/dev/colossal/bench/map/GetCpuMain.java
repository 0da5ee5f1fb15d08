package dev.colossal.bench.map;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * Thread CPU time per {@link MapBench#get()} of several stores in one JVM, in interleaved rounds
 * (the order reversed every round), so that stores are compared under the same load:
 * {@code GetCpuMain STORES ENTRIES ROUNDS CALLS [VALUE_SIZE]}, e.g. {@code colossal,colossal-unverified 1048576
 * 9 1000000}; a store named with {@code :batched} (e.g. {@code colossal:batched}) is read by
 * {@link MapBench#getBatched()} instead, and measured per key. CPU time leaves out the time other processes hold the core, so the medians stay
 * within ~10% at load averages of 10-20 on two cores where wall time swings 2-3x; cache sharing
 * with those processes still moves them, so only stores measured in the same run compare.
 */
public final class GetCpuMain {

    private GetCpuMain() {}

    /**
     * Fills every store, warms up, then prints the median and minimum CPU ns per get of each.
     *
     * @param args stores (comma-separated {@link MapBench#store} names), entries, rounds, calls per round,
     *             and optionally the value size (100 if not given)
     * @throws Exception if a store fails
     */
    public static void main(String[] args) throws Exception {
        String[] stores = args[0].split(",");
        int entries = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int calls = Integer.parseInt(args[3]);
        int valueSize = args.length > 4 ? Integer.parseInt(args[4]) : 100;
        MapBench[] benches = new MapBench[stores.length];
        boolean[] batched = new boolean[stores.length];
        for (int i = 0; i < stores.length; i++) {
            benches[i] = new MapBench();
            batched[i] = stores[i].endsWith(":batched");
            benches[i].store = stores[i].replace(":batched", "");
            benches[i].entries = entries;
            benches[i].valueSize = valueSize;
            benches[i].setUp();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int w = 0; w < 5; w++) {
            for (int i = 0; i < stores.length; i++) {
                sink += run(benches[i], batched[i], calls);
            }
        }
        double[][] ns = new double[stores.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < stores.length; k++) {
                int i = r % 2 == 0 ? k : stores.length - 1 - k;
                long start = threads.getCurrentThreadCpuTime();
                sink += run(benches[i], batched[i], calls);
                ns[i][r] = (threads.getCurrentThreadCpuTime() - start) / (double) calls;
            }
        }
        for (int i = 0; i < stores.length; i++) {
            double[] sorted = ns[i].clone();
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "%-22s CPU ns/get median %.1f min %.1f%n", stores[i],
                    sorted[rounds / 2], sorted[0]);
        }
        System.out.println("(checksum of lengths " + sink + ")");
        for (MapBench b : benches) {
            b.tearDown();
        }
    }

    private static long run(MapBench bench, boolean batched, int n) {
        long sum = 0;
        if (batched) {
            for (int i = 0; i < n; i += MapBench.BATCH) {
                sum += bench.getBatched();
            }
            return sum;
        }
        for (int i = 0; i < n; i++) {
            sum += bench.get();
        }
        return sum;
    }
}
