package dev.colossal.bench.map;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * lmdbjava's second workload, filled once: {@code entries} random int keys with {@code valueSize}-byte
 * values in one store, then timed loops of gets, overwrites and delete-and-put-backs at keys drawn at
 * random (a data set larger than the page cache has no hot insertion order to walk), and one full
 * iteration. JMH forks would refill the tens of GB before every case; here each store fills once, in a
 * JVM of its own. Prints one line of {@code key=value} pairs: nanoseconds per fill put, get, put and
 * delete, milliseconds per full pass, and the bytes the store's files take on disk.
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
            double get = timed(keys, ops, k -> {
                if (s.get(k) != valueSize) {
                    throw new IllegalStateException(store + ": key " + k + " lost its value");
                }
            });
            double put = timed(keys, ops, k -> s.put(k, value));
            double delete = timed(keys, ops / 4, k -> {
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
                    + "diskBytes=%d%n", fill, get, put, delete, iterate, diskBytes(dir));
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private interface KeyOp {
        void apply(int key) throws Exception;
    }

    /** Nanoseconds per {@code op} at random keys: a quarter as many untimed first, to warm the path. */
    private static double timed(int[] keys, int ops, KeyOp op) throws Exception {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < ops / 4; i++) {
            op.apply(keys[r.nextInt(keys.length)]);
        }
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            op.apply(keys[r.nextInt(keys.length)]);
        }
        return (System.nanoTime() - start) / (double) ops;
    }

    /** Bytes the store's files take on disk ({@code du}: sparse files count what they use, not their length). */
    private static long diskBytes(Path dir) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "-s", "-B1", dir.toString()).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        return du.waitFor() == 0 ? Long.parseLong(out.split("\\s+")[0]) : -1;
    }
}
