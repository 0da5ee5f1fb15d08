package dev.colossal.bench.arrays;

import dev.colossal.array.DoubleArray;
import dev.colossal.memory.ChunkPool;
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
 * Sequential read, sequential write and random read of 8 M doubles: DoubleArray (segmented over
 * 1 MiB pool chunks, and contiguous) against {@code double[]}, the seed's {@code ByteBuffer[]} chunks
 * and one plain mapped {@link MemorySegment}. One operation is one pass over the array (random: as
 * many reads as elements). Reads fold the raw bits with XOR so that no variant hides behind the
 * latency of a floating-point add chain.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ArrayAccessBench {

    static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    static final int CHUNK = 1 << 20;

    /** The array length shared by every variant. */
    @State(Scope.Benchmark)
    public static class Size {
        /** Elements. */
        @Param("8388608")
        public long length;
    }

    static long next(long x) {
        return x * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
    }

    /** {@code double[]}. */
    @State(Scope.Benchmark)
    public static class Heap {
        double[] a;

        @Setup
        public void setup(Size size) {
            a = new double[Math.toIntExact(size.length)];
            for (int i = 0; i < a.length; i++) {
                a[i] = i;
            }
        }
    }

    /** A DoubleArray over 1 MiB chunks of its own pool. */
    abstract static class PoolArray {
        ChunkPool pool;
        DoubleArray a;
        /** The pool region holding every chunk, and where each chunk starts in it. */
        MemorySegment region;
        long[] offsets;

        /**
         * @param backing  where the pool's chunks live
         * @param scatter  whether the pool first recycles its chunks in reverse order, so they lie out
         *                 of order in its region and each access looks up its chunk's offset (what a
         *                 pool that has been busy for a while hands out)
         * @param filled   whether to write every element once
         */
        void open(Size size, ChunkPool.Backing backing, boolean scatter, boolean filled) {
            pool = ChunkPool.builder().chunkSize(CHUNK).backing(backing).build();
            if (scatter) {
                int[] ids = new int[(int) (size.length * 8 / CHUNK)];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = pool.acquire();
                }
                for (int id : ids) {
                    pool.release(id);
                }
            }
            a = DoubleArray.segmented(pool, size.length);
            for (long i = 0; filled && i < size.length; i++) {
                a.set(i, i);
            }
            region = pool.region(0);
            offsets = new long[a.chunkCount()];
            for (int c = 0; c < offsets.length; c++) {
                offsets[c] = a.chunk(c).address() - region.address();
            }
        }

        @TearDown
        public void tearDown() {
            a.close();
            pool.close();
        }
    }

    /** A fresh file-backed pool: the array's chunks form one run in the pool's region. */
    @State(Scope.Benchmark)
    public static class Segmented extends PoolArray {
        @Setup
        public void setup(Size size) {
            open(size, ChunkPool.Backing.MAPPED_FILE, false, true);
        }
    }

    /** A file-backed pool whose chunks were recycled in reverse order. */
    @State(Scope.Benchmark)
    public static class Scattered extends PoolArray {
        @Setup
        public void setup(Size size) {
            open(size, ChunkPool.Backing.MAPPED_FILE, true, true);
        }
    }

    /** A tmpfs pool: memory with no writeback to a disk. */
    @State(Scope.Benchmark)
    public static class SegmentedTmpfs extends PoolArray {
        @Setup
        public void setup(Size size) {
            open(size, ChunkPool.Backing.TMPFS, false, false);
        }
    }

    /** DoubleArray in one private file mapping. */
    @State(Scope.Benchmark)
    public static class Contiguous {
        DoubleArray a;

        @Setup
        public void setup(Size size) {
            a = DoubleArray.contiguous(size.length);
            for (long i = 0; i < size.length; i++) {
                a.set(i, i);
            }
        }

        @TearDown
        public void tearDown() {
            a.close();
        }
    }

    /** The seed's traditional approach: mapped ByteBuffer chunks. */
    @State(Scope.Benchmark)
    public static class Buffers {
        ByteBufferChunks storage;
        ByteBuffer[] chunks;
        int shift;
        int mask;
        long length;

        @Setup
        public void setup(Size size) {
            storage = new ByteBufferChunks(Path.of(System.getProperty("java.io.tmpdir")), CHUNK);
            chunks = storage.allocate(size.length * 8);
            shift = storage.shift() - 3;
            mask = (1 << shift) - 1;
            length = size.length;
            for (long i = 0; i < length; i++) {
                chunks[(int) (i >>> shift)].putDouble((int) (i & mask) << 3, i);
            }
        }

        @TearDown
        public void tearDown() throws IOException {
            storage.close();
        }
    }

    /** One plain mapped MemorySegment. */
    @State(Scope.Benchmark)
    public static class Segment {
        Arena arena;
        MemorySegment s;
        long length;

        @Setup
        public void setup(Size size) throws IOException {
            arena = Arena.ofShared();
            Path path = Files.createTempFile("segment", ".data");
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                s = ch.map(FileChannel.MapMode.READ_WRITE, 0, size.length * 8, arena);
            }
            Files.delete(path);
            length = size.length;
            for (long i = 0; i < length; i++) {
                s.set(D, i * 8, i);
            }
        }

        @TearDown
        public void tearDown() {
            arena.close();
        }
    }

    // ---- sequential read

    @Benchmark
    public long seqReadHeap(Heap h) {
        double[] a = h.a;
        long acc = 0;
        for (int i = 0; i < a.length; i++) {
            acc ^= Double.doubleToRawLongBits(a[i]);
        }
        return acc;
    }

    @Benchmark
    public long seqReadSegmented(Segmented s) {
        return seqRead(s.a);
    }

    @Benchmark
    public long seqReadScattered(Scattered s) {
        return seqRead(s.a);
    }

    @Benchmark
    public long seqReadContiguous(Contiguous s) {
        return seqRead(s.a);
    }

    private static long seqRead(DoubleArray a) {
        long n = a.length();
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Double.doubleToRawLongBits(a.get(i));
        }
        return acc;
    }

    @Benchmark
    public long seqReadSegmentedChunks(Segmented s) {
        DoubleArray a = s.a;
        long acc = 0;
        for (int c = 0; c < a.chunkCount(); c++) {
            MemorySegment chunk = a.chunk(c);
            long bytes = chunk.byteSize();
            for (long off = 0; off < bytes; off += 8) {
                acc ^= Double.doubleToRawLongBits(chunk.get(D, off));
            }
        }
        return acc;
    }


    @Benchmark
    public long seqReadBuffers(Buffers b) {
        ByteBuffer[] chunks = b.chunks;
        int shift = b.shift;
        int mask = b.mask;
        long n = b.length;
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Double.doubleToRawLongBits(chunks[(int) (i >>> shift)].getDouble((int) (i & mask) << 3));
        }
        return acc;
    }

    @Benchmark
    public long seqReadSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc ^= Double.doubleToRawLongBits(seg.get(D, i << 3));
        }
        return acc;
    }

    // ---- sequential write

    @Benchmark
    public double[] seqWriteHeap(Heap h) {
        double[] a = h.a;
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
        return a;
    }

    @Benchmark
    public DoubleArray seqWriteSegmented(Segmented s) {
        return seqWrite(s.a);
    }

    @Benchmark
    public DoubleArray seqWriteScattered(Scattered s) {
        return seqWrite(s.a);
    }

    @Benchmark
    public DoubleArray seqWriteContiguous(Contiguous s) {
        return seqWrite(s.a);
    }

    private static DoubleArray seqWrite(DoubleArray a) {
        long n = a.length();
        for (long i = 0; i < n; i++) {
            a.set(i, i);
        }
        return a;
    }

    @Benchmark
    public DoubleArray seqWriteSegmentedChunks(Segmented s) {
        return writeChunks(s.a);
    }

    @Benchmark
    public DoubleArray seqWriteSegmentedChunksTmpfs(SegmentedTmpfs s) {
        return writeChunks(s.a);
    }

    /**
     * The values come from an int counter plus the chunk's first index as a double, so the loop
     * converts int to double like the {@code double[]} loop does (long to double has no vector
     * instruction before AVX-512, and would measure the conversion instead of the memory).
     */
    static DoubleArray writeChunks(DoubleArray a) {
        for (int c = 0; c < a.chunkCount(); c++) {
            MemorySegment chunk = a.chunk(c);
            double first = a.chunkFirstIndex(c);
            int elements = (int) (chunk.byteSize() >>> 3);
            for (int j = 0; j < elements; j++) {
                chunk.set(D, (long) j << 3, first + j);
            }
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
            chunks[(int) (i >>> shift)].putDouble((int) (i & mask) << 3, i);
        }
        return chunks;
    }

    @Benchmark
    public MemorySegment seqWriteSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        for (long i = 0; i < n; i++) {
            seg.set(D, i << 3, i);
        }
        return seg;
    }

    // ---- random read

    @Benchmark
    public long randomReadHeap(Heap h) {
        double[] a = h.a;
        long n = a.length;
        long x = 1;
        long acc = 0;
        for (long r = 0; r < n; r++) {
            x = next(x);
            acc ^= Double.doubleToRawLongBits(a[(int) Math.unsignedMultiplyHigh(x, n)]);
        }
        return acc;
    }

    @Benchmark
    public long randomReadSegmented(Segmented s) {
        return randomRead(s.a);
    }

    @Benchmark
    public long randomReadScattered(Scattered s) {
        return randomRead(s.a);
    }

    @Benchmark
    public long randomReadContiguous(Contiguous s) {
        return randomRead(s.a);
    }

    /**
     * The least any chunked layout can do on FFM: one offset lookup and one region access per read,
     * no array object, no liveness or release checks. What it loses to {@code double[]} is the cost of
     * chunking itself, not of DoubleArray.
     */
    @Benchmark
    public long randomReadOffsetsFloor(Scattered s) {
        MemorySegment region = s.region;
        long[] offsets = s.offsets;
        int shift = Long.numberOfTrailingZeros(CHUNK) - 3;
        long mask = (1L << shift) - 1;
        long n = s.a.length();
        long x = 1;
        long acc = 0;
        for (long r = 0; r < n; r++) {
            x = next(x);
            long i = Math.unsignedMultiplyHigh(x, n);
            acc ^= Double.doubleToRawLongBits(region.get(D, offsets[(int) (i >>> shift)] + ((i & mask) << 3)));
        }
        return acc;
    }

    private static long randomRead(DoubleArray a) {
        long n = a.length();
        long x = 1;
        long acc = 0;
        for (long r = 0; r < n; r++) {
            x = next(x);
            acc ^= Double.doubleToRawLongBits(a.get(Math.unsignedMultiplyHigh(x, n)));
        }
        return acc;
    }


    @Benchmark
    public long randomReadBuffers(Buffers b) {
        ByteBuffer[] chunks = b.chunks;
        int shift = b.shift;
        int mask = b.mask;
        long n = b.length;
        long x = 1;
        long acc = 0;
        for (long r = 0; r < n; r++) {
            x = next(x);
            long i = Math.unsignedMultiplyHigh(x, n);
            acc ^= Double.doubleToRawLongBits(chunks[(int) (i >>> shift)].getDouble((int) (i & mask) << 3));
        }
        return acc;
    }

    @Benchmark
    public long randomReadSegment(Segment s) {
        MemorySegment seg = s.s;
        long n = s.length;
        long x = 1;
        long acc = 0;
        for (long r = 0; r < n; r++) {
            x = next(x);
            acc ^= Double.doubleToRawLongBits(seg.get(D, Math.unsignedMultiplyHigh(x, n) << 3));
        }
        return acc;
    }
}
