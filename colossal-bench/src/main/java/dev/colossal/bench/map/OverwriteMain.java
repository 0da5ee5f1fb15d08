package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import dev.colossal.map.BytesMap;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * What a put costs the map's heap in its steady state: {@code KEYS} keys written once, then
 * overwritten at random with values of random size in {@code [MIN, MAX]} bytes, as a server's
 * nodes are (a sorted set's or a list's node put again at every change). Sizes of a few KiB fall
 * in the heap's non-exact free classes, where a fit is searched; 100 bytes hit an exact class.
 * Prints the wall and the CPU ns per overwrite of each timed round (the CPU time of the putting
 * thread holds better on a shared machine) and the file's size at the end.
 *
 * <p>Usage: {@code OverwriteMain MIN MAX [KEYS [PUTS [ROUNDS]]]} (defaults 100000 keys, 1000000
 * puts a round, 3 rounds).
 */
public final class OverwriteMain {

    private OverwriteMain() {}

    /**
     * @param args the least and the most value bytes, then optionally keys, puts a round and rounds
     * @throws Exception if the map fails
     */
    public static void main(String[] args) throws Exception {
        int min = Integer.parseInt(args[0]);
        int max = Integer.parseInt(args[1]);
        int keys = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int puts = args.length > 3 ? Integer.parseInt(args[3]) : 1_000_000;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        Path dir = Files.createTempDirectory("colossal-bench-overwrite");
        SplittableRandom random = new SplittableRandom(27);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined(); BytesMap map = BytesMap.open(dir.resolve("overwrite.map"))) {
            MemorySegment key = arena.allocate(Long.BYTES);
            MemorySegment value = arena.allocate(max);
            for (long i = 0; i < max; i++) {
                value.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            for (int k = 0; k < keys; k++) {
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, k);
                map.put(key, value, 0, random.nextInt(min, max + 1));
            }
            long filled = Dirs.apparentBytes(dir);
            StringBuilder line = new StringBuilder("min=" + min + " max=" + max + " keys=" + keys
                    + " filledBytes=" + filled);
            for (int r = 0; r < rounds; r++) {
                long start = System.nanoTime();
                long cpuStart = threads.getCurrentThreadCpuTime();
                for (int p = 0; p < puts; p++) {
                    key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, random.nextInt(keys));
                    map.put(key, value, 0, random.nextInt(min, max + 1));
                }
                long ns = System.nanoTime() - start;
                long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
                line.append(String.format(" round%d=%.0fns/%.0fcpu", r, (double) ns / puts, (double) cpu / puts));
            }
            line.append(" endBytes=").append(Dirs.apparentBytes(dir));
            System.out.println(line);
        } finally {
            Dirs.deleteTree(dir);
        }
    }
}
