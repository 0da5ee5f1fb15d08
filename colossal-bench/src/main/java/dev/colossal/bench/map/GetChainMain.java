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
 * Where a big value's get spends its time: several stores filled in one JVM with the same random
 * int keys and values (as {@link BigValuesMain} fills one), then timed blocks of gets that take
 * turns between the stores, so that every store sees the same machine at nearly the same moment.
 * Each round times two kinds of block:
 *
 * <ul>
 *   <li>{@code apart}: gets back to back at keys drawn beforehand, as {@link BigValuesMain} times
 *       them. Nothing waits for a value's bytes, so the core may start the next get's misses
 *       while the last copy's lines are still on their way.
 *   <li>{@code chained}: the next key is picked with the last byte of the value just read, as a
 *       caller that uses each value before it asks for the next does (a server writing the reply);
 *       each get then waits for all of its value.
 * </ul>
 *
 * <p>Prints, per store and kind, the thread's CPU nanoseconds per get: the median of the rounds,
 * then every round.
 *
 * <p>Usage: {@code GetChainMain ENTRIES VALUE_SIZE GETS_PER_BLOCK ROUNDS STORE[,STORE...]}
 * (stores as {@link Store#create}, e.g. {@code colossal,colossal-unverified,chronicle})
 */
public final class GetChainMain {

    private GetChainMain() {}

    /**
     * @param args entries, value size, gets per timed block, rounds, comma-separated store names
     * @throws Exception if a store fails
     */
    public static void main(String[] args) throws Exception {
        int entries = Integer.parseInt(args[0]);
        int valueSize = Integer.parseInt(args[1]);
        int gets = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        String[] names = args[4].split(",");
        int[] keys = new int[entries];
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < entries; i++) {
            keys[i] = rnd.nextInt();
        }
        Store[] stores = new Store[names.length];
        Path[] dirs = new Path[names.length];
        try {
            for (int s = 0; s < names.length; s++) {
                dirs[s] = Files.createTempDirectory("colossal-bench-chain");
                stores[s] = Store.create(names[s], dirs[s], entries, valueSize);
                fill(stores[s], keys, valueSize);
            }
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            double[][][] cpu = new double[names.length][2][rounds];
            long sink = 0;
            // Round -1 warms every store's path in both kinds and is not kept.
            for (int r = -1; r < rounds; r++) {
                for (int kind = 0; kind < 2; kind++) {
                    for (int s = 0; s < names.length; s++) {
                        SplittableRandom draws = new SplittableRandom(7 + r);
                        long c0 = threads.getCurrentThreadCpuTime();
                        sink += kind == 0 ? apart(stores[s], keys, draws, gets) : chained(stores[s], keys, draws, gets);
                        long c1 = threads.getCurrentThreadCpuTime();
                        if (r >= 0) {
                            cpu[s][kind][r] = (c1 - c0) / (double) gets;
                        }
                    }
                }
            }
            for (int s = 0; s < names.length; s++) {
                for (int kind = 0; kind < 2; kind++) {
                    double[] all = cpu[s][kind];
                    double[] sorted = all.clone();
                    Arrays.sort(sorted);
                    System.out.printf(Locale.ROOT, "%s %s cpuNsPerGet median=%.0f rounds=%s%n", names[s],
                            kind == 0 ? "apart" : "chained", sorted[rounds / 2],
                            Arrays.toString(Arrays.stream(all).mapToLong(Math::round).toArray()));
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

    private static void fill(Store store, int[] keys, int valueSize) {
        byte[] value = new byte[valueSize];
        new SplittableRandom(1).nextBytes(value);
        for (int i = 0; i < keys.length; i++) {
            value[0] = (byte) i;
            store.put(keys[i], value);
        }
    }

    /** Gets at keys drawn independently of what they read; returns the sum of the lengths. */
    private static long apart(Store store, int[] keys, SplittableRandom draws, int gets) {
        long sum = 0;
        for (int i = 0; i < gets; i++) {
            sum += store.get(keys[draws.nextInt(keys.length)]);
        }
        return sum;
    }

    /**
     * Gets where each key depends on the last byte of the value before (one key of two neighbours
     * in the key array), so a get starts only once the last one's bytes have arrived.
     */
    private static long chained(Store store, int[] keys, SplittableRandom draws, int gets) {
        long sum = 0;
        int last = 0;
        for (int i = 0; i < gets; i++) {
            sum += store.get(keys[draws.nextInt(keys.length - 1) + (last & 1)]);
            last = store.lastValueByte();
        }
        return sum + last;
    }
}
