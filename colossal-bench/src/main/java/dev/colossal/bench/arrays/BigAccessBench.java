package dev.colossal.bench.arrays;

import dev.colossal.array.FloatArray;
import dev.colossal.memory.ChunkPool;
import dev.colossal.memory.MappedArena;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The same accesses past 2^31 elements: 3 G floats (12 GiB; 3 G doubles would be 24 GiB, the whole
 * RAM of the benchmark machine), every variant on {@code /dev/shm} so that the disk is not what is
 * measured. No {@code float[]} can hold this. Random read: 16 M reads per operation.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BigAccessBench {

    static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final long RANDOM_READS = 1L << 24;
    static final Path SHM = Path.of("/dev/shm");

    /** The array length shared by every variant. */
    @State(Scope.Benchmark)
    public static class Size {
        /** Elements. */
        @Param("3000000000")
        public long length;
    }

    static void fill(FloatArray a) {
        for (int c = 0; c < a.chunkCount(); c++) {
            MemorySegment chunk = a.chunk(c);
            long first = a.chunkFirstIndex(c);
            for (long off = 0; off < chunk.byteSize(); off += 4) {
                chunk.set(F, off, first + (off >>> 2));
            }
        }
    }

    /** FloatArray over 1 MiB chunks of a tmpfs pool. */
    @State(Scope.Benchmark)
    public static class Segmented {
        ChunkPool pool;
        FloatArray a;

        @Setup
        public void setup(Size size) {
            pool = ChunkPool.builder().backing(ChunkPool.Backing.TMPFS).build();
            a = FloatArray.segmented(pool, size.length);
            fill(a);
        }

        @TearDown
        public void tearDown() {
            a.close();
            pool.close();
        }
    }

    /** FloatArray in one tmpfs mapping. */
    @State(Scope.Benchmark)
    public static class Contiguous {
        MappedArena arena;
        FloatArray a;

        @Setup
        public void setup(Size size) {
            arena = MappedArena.ofShm();
            a = FloatArray.contiguous(arena, size.length);
            fill(a);
        }

        @TearDown
        public void tearDown() {
            a.close();
            arena.close();
        }
    }

    /** ByteBuffer chunks mapped from tmpfs. */
    @State(Scope.Benchmark)
    public static class Buffers {
        ByteBufferChunks storage;
        ByteBuffer[] chunks;
        int shift;
        int mask;
        long length;

        @Setup
        public void setup(Size size) {
            storage = new ByteBufferChunks(SHM, ArrayAccessBench.CHUNK);
            chunks = storage.allocate(size.length * 4);
            shift = storage.shift() - 2;
            mask = (1 << shift) - 1;
            length = size.length;
            for (long i = 0; i < length; i++) {
                chunks[(int) (i >>> shift)].putFloat((int) (i & mask) << 2, i);
            }
        }

        @TearDown
        public void tearDown() throws IOException {
            storage.close();
        }
    }

    /** One plain MemorySegment mapped from tmpfs. */
    @State(Scope.Benchmark)
    public static class Segment {
        Arena arena;
        MemorySegment s;
        long length;

        @Setup
        public void setup(Size size) throws IOException {
            arena = Arena.ofShared();
            Path path = Files.createTempFile(SHM, "segment", ".data");
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                s = ch.map(FileChannel.MapMode.READ_WRITE, 0, size.length * 4, arena);
            }
            Files.delete(path);
            length = size.length;
            for (long i = 0; i < length; i++) {
                s.set(F, i << 2, i);
            }
        }

        @TearDown
        public void tearDown() {
            arena.close();
        }
    }

    @Benchmark
    public int seqReadSegmented(Segmented s) {
        FloatArray a = s.a;
        long n = a.length();
        int acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Float.floatToRawIntBits(a.get(i));
        }
        return acc;
    }

    @Benchmark
    public int seqReadSegmentedChunks(Segmented s) {
        FloatArray a = s.a;
        int acc = 0;
        for (int c = 0; c < a.chunkCount(); c++) {
            MemorySegment chunk = a.chunk(c);
            long bytes = chunk.byteSize();
            for (long off = 0; off < bytes; off += 4) {
                acc ^= Float.floatToRawIntBits(chunk.get(F, off));
            }
        }
        return acc;
    }

    @Benchmark
    public int seqReadContiguous(Contiguous s) {
        FloatArray a = s.a;
        long n = a.length();
        int acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Float.floatToRawIntBits(a.get(i));
        }
        return acc;
    }

    @Benchmark
    public int seqReadBuffers(Buffers b) {
        ByteBuffer[] chunks = b.chunks;
        int shift = b.shift;
        int mask = b.mask;
        long n = b.length;
        int acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Float.floatToRawIntBits(chunks[(int) (i >>> shift)].getFloat((int) (i & mask) << 2));
        }
        return acc;
    }

    @Benchmark
    public int seqReadSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        int acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Float.floatToRawIntBits(seg.get(F, i << 2));
        }
        return acc;
    }

    @Benchmark
    public FloatArray seqWriteSegmented(Segmented s) {
        FloatArray a = s.a;
        long n = a.length();
        for (long i = 0; i < n; i++) {
            a.set(i, i);
        }
        return a;
    }

    @Benchmark
    public FloatArray seqWriteSegmentedChunks(Segmented s) {
        fill(s.a);
        return s.a;
    }

    @Benchmark
    public FloatArray seqWriteContiguous(Contiguous s) {
        FloatArray a = s.a;
        long n = a.length();
        for (long i = 0; i < n; i++) {
            a.set(i, i);
        }
        return a;
    }

    @Benchmark
    public ByteBuffer[] seqWriteBuffers(Buffers b) {
        ByteBuffer[] chunks = b.chunks;
        int shift = b.shift;
        int mask = b.mask;
        long n = b.length;
        for (long i = 0; i < n; i++) {
            chunks[(int) (i >>> shift)].putFloat((int) (i & mask) << 2, i);
        }
        return chunks;
    }

    @Benchmark
    public MemorySegment seqWriteSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        for (long i = 0; i < n; i++) {
            seg.set(F, i << 2, i);
        }
        return seg;
    }

    @Benchmark
    public int randomReadSegmented(Segmented s) {
        FloatArray a = s.a;
        long n = a.length();
        long x = 1;
        int acc = 0;
        for (long r = 0; r < RANDOM_READS; r++) {
            x = ArrayAccessBench.next(x);
            acc ^= Float.floatToRawIntBits(a.get(Math.unsignedMultiplyHigh(x, n)));
        }
        return acc;
    }

    @Benchmark
    public int randomReadContiguous(Contiguous s) {
        FloatArray a = s.a;
        long n = a.length();
        long x = 1;
        int acc = 0;
        for (long r = 0; r < RANDOM_READS; r++) {
            x = ArrayAccessBench.next(x);
            acc ^= Float.floatToRawIntBits(a.get(Math.unsignedMultiplyHigh(x, n)));
        }
        return acc;
    }

    @Benchmark
    public int randomReadBuffers(Buffers b) {
        ByteBuffer[] chunks = b.chunks;
        int shift = b.shift;
        int mask = b.mask;
        long n = b.length;
        long x = 1;
        int acc = 0;
        for (long r = 0; r < RANDOM_READS; r++) {
            x = ArrayAccessBench.next(x);
            long i = Math.unsignedMultiplyHigh(x, n);
            acc ^= Float.floatToRawIntBits(chunks[(int) (i >>> shift)].getFloat((int) (i & mask) << 2));
        }
        return acc;
    }

    @Benchmark
    public int randomReadSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        long x = 1;
        int acc = 0;
        for (long r = 0; r < RANDOM_READS; r++) {
            x = ArrayAccessBench.next(x);
            acc ^= Float.floatToRawIntBits(seg.get(F, Math.unsignedMultiplyHigh(x, n) << 2));
        }
        return acc;
    }
}
