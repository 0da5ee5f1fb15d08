package dev.colossal.bench.map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Ways to read a big entry out of a file mapping and check its CRC32C, without the map around
 * them: an 8-byte header at a random place in the mapping (the length depends on it, as an
 * entry's does), then the entry's bytes summed and its value copied to a native buffer. The
 * ways, taking turns in each round:
 *
 * <ul>
 *   <li>{@code copy}: the value copied, nothing summed (a get that does not verify);
 *   <li>{@code array}: the entry copied to a heap array and summed there, then the value copied
 *       from the mapping (what the map does);
 *   <li>{@code dstView}: the value copied, then summed through a buffer view of the destination
 *       (one pass over the mapping);
 *   <li>{@code mapView}: summed through a buffer view of the mapping, then the value copied;
 *   <li>{@code touched}: a load from every line of the entry first, so that its misses start
 *       together with the header's, then as {@code array};
 *   <li>{@code chunks}: copied and summed 512 bytes at a time, so that summing starts before the
 *       last lines arrive, then the value copied.
 * </ul>
 *
 * <p>Each way is timed {@code apart} (offsets drawn beforehand) and {@code chained} (the next
 * offset depends on the last byte copied, as when each value is used before the next read).
 * Prints the thread's CPU nanoseconds per read: the median of the rounds, then the lowest.
 *
 * <p>Usage: {@code VerifiedCopyMain MIB VALUE_SIZE READS ROUNDS} (a file of {@code MIB} MiB in
 * the temporary directory, deleted after)
 */
public final class VerifiedCopyMain {

    private static final String[] WAYS = {"copy", "array", "dstView", "mapView", "touched", "chunks"};
    /** Bytes summed before the value: the lengths and a 4-byte key, as in a map entry. */
    private static final int BEFORE = 7;

    private final MemorySegment m;
    private final ByteBuffer mapView;
    private final MemorySegment dst;
    private final ByteBuffer dstView;
    private final byte[] array;
    private final CRC32C crc = new CRC32C();
    private final long slots;
    private final int valueSize;

    private VerifiedCopyMain(MemorySegment m, MemorySegment dst, int valueSize) {
        this.m = m;
        this.mapView = m.asSlice(0, Math.min(m.byteSize(), Integer.MAX_VALUE)).asByteBuffer();
        this.dst = dst;
        this.dstView = dst.asByteBuffer();
        this.array = new byte[valueSize + 64];
        this.slots = (Math.min(m.byteSize(), Integer.MAX_VALUE) - valueSize - 64) / Long.BYTES;
        this.valueSize = valueSize;
    }

    /**
     * @param args file size in MiB, value size, reads per timed block, rounds
     * @throws Exception if the file cannot be made or mapped
     */
    public static void main(String[] args) throws Exception {
        long bytes = Long.parseLong(args[0]) << 20;
        int valueSize = Integer.parseInt(args[1]);
        int reads = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        Path file = Files.createTempFile("colossal-verified-copy", ".bin");
        try (Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            SplittableRandom fill = new SplittableRandom(1);
            for (long i = 0; i < bytes; i += Long.BYTES) {
                // Top bit clear: a header's length is then valueSize (see read).
                m.set(JAVA_LONG, i, fill.nextLong() >>> 1);
            }
            VerifiedCopyMain bench = new VerifiedCopyMain(m, Arena.ofConfined().allocate(valueSize + 64), valueSize);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            double[][][] cpu = new double[WAYS.length][2][rounds];
            long sink = 0;
            for (int r = -2; r < rounds; r++) {
                for (int chained = 0; chained < 2; chained++) {
                    for (int way = 0; way < WAYS.length; way++) {
                        SplittableRandom draws = new SplittableRandom(100 + r);
                        long c0 = threads.getCurrentThreadCpuTime();
                        sink += bench.reads(way, chained == 1, draws, reads);
                        long c1 = threads.getCurrentThreadCpuTime();
                        if (r >= 0) {
                            cpu[way][chained][r] = (c1 - c0) / (double) reads;
                        }
                    }
                }
            }
            for (int chained = 0; chained < 2; chained++) {
                StringBuilder line = new StringBuilder(chained == 1 ? "chained" : "apart  ");
                for (int way = 0; way < WAYS.length; way++) {
                    double[] sorted = cpu[way][chained].clone();
                    Arrays.sort(sorted);
                    line.append(String.format(Locale.ROOT, "  %s=%.0f (min %.0f)", WAYS[way], sorted[rounds / 2], sorted[0]));
                }
                System.out.println(line);
            }
            System.out.println("checksum " + sink);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private long reads(int way, boolean chained, SplittableRandom draws, int reads) {
        long sum = 0;
        int last = 0;
        for (int i = 0; i < reads; i++) {
            long at = (draws.nextLong(slots - 1) + (chained ? last & 1 : 0)) * Long.BYTES;
            sum += read(way, at);
            last = dst.get(JAVA_BYTE, valueSize - 1);
        }
        return sum + last;
    }

    /** One read at {@code at} in the given way; returns its sum (0 for {@code copy}). */
    private long read(int way, long at) {
        long touched = 0;
        if (way == 4) {
            for (long q = Long.BYTES; q < BEFORE + valueSize; q += 64) {
                touched |= m.get(JAVA_LONG, at + q);
            }
        }
        // The header: the length depends on the loaded word, so nothing below starts before it.
        int length = valueSize + (int) (m.get(JAVA_LONG, at) >>> 63);
        long value = at + BEFORE;
        long sum = touched < 0 ? 1 : 0;
        crc.reset();
        switch (way) {
            case 0 -> MemorySegment.copy(m, value, dst, 0, length);
            case 1, 4 -> {
                MemorySegment.copy(m, JAVA_BYTE, at, array, 0, BEFORE + length);
                crc.update(array, 0, BEFORE + length);
                MemorySegment.copy(m, value, dst, 0, length);
            }
            case 2 -> {
                MemorySegment.copy(m, value, dst, 0, length);
                MemorySegment.copy(m, JAVA_BYTE, at, array, 0, BEFORE);
                crc.update(array, 0, BEFORE);
                crc.update(dstView.clear().limit(length));
            }
            case 3 -> {
                crc.update(mapView.clear().position((int) at).limit((int) at + BEFORE + length));
                MemorySegment.copy(m, value, dst, 0, length);
            }
            default -> {
                for (int done = 0; done < BEFORE + length; done += 512) {
                    int n = Math.min(512, BEFORE + length - done);
                    MemorySegment.copy(m, JAVA_BYTE, at + done, array, done, n);
                    crc.update(array, done, n);
                }
                MemorySegment.copy(m, value, dst, 0, length);
            }
        }
        return sum + (way == 0 ? 0 : crc.getValue());
    }
}
