package dev.colossal.bench.map;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What this machine allows a batched lookup: pairs of random reads (a "slot", then a second read
 * at an address that depends on it, an "entry") in a file mapping of a given size, {@code batch}
 * pairs at a time with every first read of a batch issued before any second one. Batch 1 is a
 * lone lookup's floor (each pair waits for the one before); larger batches show how many misses
 * and page walks the core keeps in flight. Prints nanoseconds per pair for each batch size.
 *
 * <p>Usage: {@code MissOverlapMain MEGABYTES [FILE]} (default file: a temporary one, deleted after)
 */
public final class MissOverlapMain {

    private MissOverlapMain() {}

    /**
     * @param args mapping size in MiB, then optionally the file to map (created and filled if short)
     * @throws Exception if the file cannot be mapped
     */
    public static void main(String[] args) throws Exception {
        long bytes = Long.parseLong(args[0]) << 20;
        Path file = args.length > 1 ? Path.of(args[1]) : Files.createTempFile("colossal-miss-overlap", ".bin");
        try (Arena arena = Arena.ofConfined();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            long words = bytes / Long.BYTES;
            // One word a page, so that every page is real memory before anything is timed.
            for (long i = 0; i < words; i += 512) {
                m.setAtIndex(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
            }
            for (int round = 0; round < 3; round++) {
                StringBuilder line = new StringBuilder("ns per pair by batch:");
                for (int batch : new int[] {1, 4, 8, 16, 32, 64}) {
                    line.append(String.format(Locale.ROOT, " %d=%.0f", batch, nanosPerPair(m, words, batch)));
                }
                System.out.println(line);
            }
        } finally {
            if (args.length == 1) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static double nanosPerPair(MemorySegment m, long words, int batch) {
        long[] at = new long[batch];
        SplittableRandom r = new SplittableRandom(3);
        long sum = 0;
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() - start < 1_000_000_000L) {
            for (int j = 0; j < batch; j++) {
                at[j] = (r.nextLong() >>> 1) % words;
            }
            for (int j = 0; j < batch; j++) {
                at[j] = ((m.getAtIndex(ValueLayout.JAVA_LONG, at[j]) ^ r.nextLong()) >>> 1) % words;
            }
            for (int j = 0; j < batch; j++) {
                sum += m.getAtIndex(ValueLayout.JAVA_LONG, at[j]);
            }
            n += batch;
        }
        if (sum == 42) {
            System.out.print("");
        }
        return (System.nanoTime() - start) / (double) n;
    }
}
