package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Whether back-to-back gets of a store overlap their cache misses: the same keys read in
 * {@link MapBench#get}'s order twice, once {@code apart} (the next key is known before the get
 * returns, as in the JMH suite) and once {@code chained} (the next key's index takes the sign of
 * the last get's result, so it waits for the lookup that produced it, which no store can tell
 * from a real dependency). A store whose get is short enough for the core to reach the next get's
 * loads while this one's misses are outstanding reads much faster apart than chained
 * (ConcurrentHashMap); one whose get fills the out-of-order window reads both at the same speed,
 * its misses and work one after the other. Unlike {@link GetChainMain}, the chain goes through
 * the returned length, which every store has, the heap map too.
 *
 * <p>Usage: {@code GetOverlapMain STORES ENTRIES ROUNDS GETS} (stores as {@link Store#create},
 * comma-separated; 100-byte values). Prints each store's median thread CPU ns per get of both kinds.
 */
public final class GetOverlapMain {

    private GetOverlapMain() {}

    /**
     * @param args stores, entries, rounds, gets per timed block
     * @throws Exception if a store fails
     */
    public static void main(String[] args) throws Exception {
        String[] names = args[0].split(",");
        int entries = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int gets = Integer.parseInt(args[3]);
        int[] keys = new int[entries];
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < entries; i++) {
            keys[i] = rnd.nextInt();
        }
        Store[] stores = new Store[names.length];
        Path[] dirs = new Path[names.length];
        try {
            byte[] value = new byte[100];
            for (int s = 0; s < names.length; s++) {
                dirs[s] = Files.createTempDirectory("colossal-bench-overlap");
                stores[s] = Store.create(names[s], dirs[s], entries, value.length);
                for (int i = 0; i < entries; i++) {
                    value[0] = (byte) i;
                    stores[s].put(keys[i], value);
                }
            }
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            double[][][] cpu = new double[names.length][2][rounds];
            long sink = 0;
            // Three rounds warm every store's path in both kinds and are not kept; the order of
            // the stores turns round every round.
            for (int r = -3; r < rounds; r++) {
                for (int k = 0; k < names.length; k++) {
                    int s = (r & 1) == 0 ? k : names.length - 1 - k;
                    for (int kind = 0; kind < 2; kind++) {
                        long c0 = threads.getCurrentThreadCpuTime();
                        sink += kind == 0 ? apart(stores[s], keys, gets) : chained(stores[s], keys, gets);
                        if (r >= 0) {
                            cpu[s][kind][r] = (threads.getCurrentThreadCpuTime() - c0) / (double) gets;
                        }
                    }
                }
            }
            for (int s = 0; s < names.length; s++) {
                for (int kind = 0; kind < 2; kind++) {
                    double[] sorted = cpu[s][kind].clone();
                    Arrays.sort(sorted);
                    System.out.printf(Locale.ROOT, "%s %s cpuNsPerGet median=%.0f rounds=%s%n", names[s],
                            kind == 0 ? "apart" : "chained", sorted[rounds / 2],
                            Arrays.toString(Arrays.stream(cpu[s][kind]).mapToLong(Math::round).toArray()));
                }
            }
            System.out.println("checksum " + sink);
        } finally {
            for (int s = 0; s < names.length; s++) {
                if (stores[s] != null) {
                    stores[s].close();
                }
                if (dirs[s] != null) {
                    Dirs.deleteTree(dirs[s]);
                }
            }
        }
    }

    /** Gets of the keys in order; returns the sum of the lengths. */
    private static long apart(Store store, int[] keys, int gets) {
        long sum = 0;
        for (int i = 0, at = 0; i < gets; i++, at = at + 1 == keys.length ? 0 : at + 1) {
            sum += store.get(keys[at]);
        }
        return sum;
    }

    /**
     * The same keys, each index moved on by one more when the last key was absent (never: every
     * key is present), so that each get waits for the one before.
     */
    private static long chained(Store store, int[] keys, int gets) {
        long sum = 0;
        for (int i = 0, at = 0; i < gets; i++) {
            int length = store.get(keys[at]);
            sum += length;
            at += 1 + (length >>> 31);
            if (at >= keys.length) {
                at = 0;
            }
        }
        return sum;
    }
}
