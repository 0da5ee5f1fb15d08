import java.lang.foreign.*;
import java.lang.management.*;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import static java.nio.file.StandardOpenOption.*;
/**
 * Two dependent random reads (a slot in a 12 MB table, then the 8 bytes it names in 128 MB), by
 * where the bytes live (file: a mapped file; native: Arena memory; heap: a long[]): the floor of
 * a get's two misses. "apart": keys drawn beforehand, so the core overlaps the reads of
 * consecutive keys; "chained": the next key waits for the last read. FloorProbe MODE CALLS [chained]
 */
public class FloorProbe {
    static final long TABLE = 12L << 20, HEAP = 128L << 20, SIZE = TABLE + HEAP;
    public static void main(String[] a) throws Exception {
        String mode = a[0]; int calls = Integer.parseInt(a[1]); int rounds = 7; boolean chained = a.length > 2 && a[2].equals("chained");
        MemorySegment m;
        if (mode.equals("file")) {
            Path p = Files.createTempFile(Path.of("/tmp"), "floor", ".bin");
            FileChannel ch = FileChannel.open(p, READ, WRITE);
            ch.write(java.nio.ByteBuffer.wrap(new byte[1]), SIZE - 1);
            m = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, Arena.ofShared());
            Files.delete(p);
        } else if (mode.equals("native")) {
            m = Arena.ofShared().allocate(SIZE, 4096);
        } else {
            m = MemorySegment.ofArray(new long[(int) (SIZE / 8)]);
        }
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        long slots = TABLE / 8;
        for (long i = 0; i < slots; i++) {
            m.set(ValueLayout.JAVA_LONG, i * 8, TABLE + (r.nextLong(HEAP / 128)) * 128 + r.nextInt(14) * 8);
        }
        for (long i = TABLE; i < SIZE; i += 4096) m.set(ValueLayout.JAVA_LONG, i, 1);
        int[] keys = new int[1 << 20];
        for (int i = 0; i < keys.length; i++) keys[i] = r.nextInt();
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        long sink = 0; int next = 0; double[] ns = new double[rounds];
        for (int round = -2; round < rounds; round++) {
            long c0 = t.getCurrentThreadCpuTime();
            for (int n = 0; n < calls; n++) {
                int k = keys[next]; next = (next + 1) & (keys.length - 1);
                long h = k * 0x9E3779B97F4A7C15L;
                long slot = m.get(ValueLayout.JAVA_LONG, ((h >>> 20) % slots) * 8);
                long v = m.get(ValueLayout.JAVA_LONG, slot);
                sink += v;
                if (chained) {
                    // never moves (v is a small position or 0), but the next key waits for v
                    next = (next + (int) (v >>> 63)) & (keys.length - 1);
                }
            }
            if (round >= 0) ns[round] = (t.getCurrentThreadCpuTime() - c0) / (double) calls;
        }
        double[] s = ns.clone(); java.util.Arrays.sort(s);
        System.out.printf("%-7s %-7s two dependent reads: cpu ns median %.1f min %.1f %s%n", mode, chained ? "chained" : "apart", s[rounds / 2], s[0], sink == 42 ? "" : "");
    }
}
