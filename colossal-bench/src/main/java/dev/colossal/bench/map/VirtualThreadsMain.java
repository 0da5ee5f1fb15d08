package dev.colossal.bench.map;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.colossal.codec.Codecs;
import dev.colossal.map.BytesMap;
import dev.colossal.map.ColossalMap;
import dev.colossal.map.MapOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;

/**
 * What one map operation costs a request, the way a server runs requests:
 * {@code VirtualThreadsMain [ROUNDS] [REQUESTS] [MODES]} (default 7 rounds of 20000 requests, every
 * mode; MODES is a comma-separated list of the modes below, as one JVM that runs only platform
 * threads compiles the map's calls for them alone). Each request is
 * one typed get or put of a {@code ColossalMap<Long, Item>} (a small record), or one raw
 * {@code BytesMap.get(key, dst)}, or nothing at all (the baseline), run as a task of
 * <ul>
 *   <li>{@code fresh-virtual}: a new virtual thread per request (what Helidon, or Jetty, Tomcat and
 *       Spring with virtual threads enabled do);</li>
 *   <li>{@code platform-pool}: a fixed pool of platform threads, one per core;</li>
 *   <li>{@code virtual-pool}: the same fixed pool made of long-lived virtual threads.</li>
 * </ul>
 * Per request it prints the wall time and the heap bytes allocated by all threads together (the
 * JVM's own counter: a virtual thread's allocations are counted on its carrier), each also net of
 * the empty request of the same mode, as the median of the rounds and their range; the modes
 * and operations take turns within each round.
 */
public final class VirtualThreadsMain {

    /** The value: a small record, as a session or a user row would be. */
    public record Item(String name, int quantity, long price) {}

    private static final int KEYS = 4096;
    private static final String[] ALL_MODES = {"fresh-virtual", "platform-pool", "virtual-pool"};
    private static final String[] OPS = {"empty", "get", "put", "raw-get"};

    private VirtualThreadsMain() {}

    /**
     * Runs the rounds and prints the medians.
     *
     * @param args rounds, then requests per round and operation, then the modes
     * @throws Exception if the map fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        String[] modes = args.length > 2 ? args[2].split(",") : ALL_MODES;
        int cores = Runtime.getRuntime().availableProcessors();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ColossalMap<Long, Item> map = ColossalMap.inMemory(Codecs.int64(), Codecs.of(Item.class), MapOptions.DEFAULTS)) {
            BytesMap raw = map.bytes();
            Long[] keys = new Long[KEYS];
            Item[] items = new Item[KEYS];
            MemorySegment[] rawKeys = new MemorySegment[KEYS];
            MemorySegment[] dsts = new MemorySegment[KEYS];
            Arena arena = Arena.global();
            for (int i = 0; i < KEYS; i++) {
                keys[i] = (long) i;
                items[i] = new Item("item-" + i, i % 100, 1000L * i);
                map.put(keys[i], items[i]);
                // the raw key is the typed key's encoding: a raw get finds the same entries
                rawKeys[i] = arena.allocate(8);
                rawKeys[i].set(JAVA_LONG_UNALIGNED, 0, i);
                dsts[i] = arena.allocate(256);
            }
            if (raw.get(rawKeys[1], dsts[1]) < 0) {
                throw new IllegalStateException("int64 keys are not 8 little-endian bytes: the raw get finds nothing");
            }
            IntConsumer[] ops = {
                i -> { },
                i -> {
                    if (map.get(keys[i % KEYS]) == null) {
                        throw new AssertionError("key " + i % KEYS + " absent");
                    }
                },
                i -> map.put(keys[i % KEYS], items[i % KEYS]),
                i -> {
                    if (raw.get(rawKeys[i % KEYS], dsts[i % KEYS]) < 0) {
                        throw new AssertionError("raw key " + i % KEYS + " absent");
                    }
                },
            };
            ExecutorService[] executors = new ExecutorService[modes.length];
            for (int i = 0; i < modes.length; i++) {
                executors[i] = switch (modes[i]) {
                    case "fresh-virtual" -> Executors.newVirtualThreadPerTaskExecutor();
                    case "platform-pool" -> Executors.newFixedThreadPool(cores);
                    case "virtual-pool" -> Executors.newFixedThreadPool(cores, Thread.ofVirtual().factory());
                    default -> throw new IllegalArgumentException("mode=" + modes[i] + " is none of "
                            + String.join(", ", ALL_MODES));
                };
            }
            double[][][] ns = new double[modes.length][OPS.length][rounds];
            double[][][] bytes = new double[modes.length][OPS.length][rounds];
            for (int warm = 0; warm < 3; warm++) {
                for (ExecutorService e : executors) {
                    for (IntConsumer op : ops) {
                        runBatch(e, op, requests);
                    }
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < modes.length * OPS.length; k++) {
                    int cell = r % 2 == 0 ? k : modes.length * OPS.length - 1 - k;
                    int mode = cell / OPS.length;
                    int op = cell % OPS.length;
                    System.gc();
                    long b0 = threads.getTotalThreadAllocatedBytes();
                    long t0 = System.nanoTime();
                    runBatch(executors[mode], ops[op], requests);
                    long t1 = System.nanoTime();
                    long b1 = threads.getTotalThreadAllocatedBytes();
                    ns[mode][op][r] = (t1 - t0) / (double) requests;
                    bytes[mode][op][r] = (b1 - b0) / (double) requests;
                }
            }
            for (ExecutorService e : executors) {
                e.close();
            }
            System.out.printf(Locale.ROOT, "%d rounds of %d requests per cell, %d cores, %d keys; median [min-max]%n",
                    rounds, requests, cores, KEYS);
            System.out.printf(Locale.ROOT, "%-14s %-8s %22s %22s %20s %22s%n", "mode", "op", "ns/request",
                    "ns net of empty", "bytes/request", "bytes net of empty");
            for (int mode = 0; mode < modes.length; mode++) {
                for (int op = 0; op < OPS.length; op++) {
                    System.out.printf(Locale.ROOT, "%-14s %-8s %22s %22s %20s %22s%n", modes[mode], OPS[op],
                            spread(ns[mode][op], null), op == 0 ? "" : spread(ns[mode][op], ns[mode][0]),
                            spread(bytes[mode][op], null), op == 0 ? "" : spread(bytes[mode][op], bytes[mode][0]));
                }
            }
        }
    }

    /** Runs {@code n} requests of {@code op} on {@code executor} and waits for all of them. */
    private static void runBatch(ExecutorService executor, IntConsumer op, int n) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int request = i;
            executor.execute(() -> {
                try {
                    op.accept(request);
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
    }

    /** "median [min-max]" of {@code values}, each less the same round's {@code base} if given. */
    private static String spread(double[] values, double[] base) {
        double[] v = values.clone();
        if (base != null) {
            for (int i = 0; i < v.length; i++) {
                v[i] -= base[i];
            }
        }
        Arrays.sort(v);
        return String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", v[v.length / 2], v[0], v[v.length - 1]);
    }
}
