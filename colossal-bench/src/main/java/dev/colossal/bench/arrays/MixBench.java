package dev.colossal.bench.arrays;

import dev.colossal.array.DoubleArray;
import dev.colossal.cli.Mix;
import dev.colossal.memory.ChunkPool;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * Seed 000's Mix workload: two realised white-noise signals (1 s at 192 kHz) mixed into a new
 * realised signal, which is then dropped; storage is recycled (pool chunks, ByteBuffer free list,
 * or the garbage collector for {@code double[]}). One operation is one mix.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MixBench {

    /** Samples per signal. */
    @State(Scope.Benchmark)
    public static class Signal {
        /** Samples. */
        @Param("192000")
        public int samples;
    }

    /** Colossal: segmented DoubleArrays over a file-backed pool. */
    @State(Scope.Benchmark)
    public static class Segmented {
        ChunkPool pool;
        DoubleArray a;
        DoubleArray b;

        @Setup
        public void setup(Signal s) {
            pool = ChunkPool.builder().build();
            a = Mix.whiteNoise(pool, s.samples, 1);
            b = Mix.whiteNoise(pool, s.samples, 2);
        }

        @TearDown
        public void tearDown() {
            a.close();
            b.close();
            pool.close();
        }
    }

    /** {@code double[]}: a new array per mix, as a Java program would write it. */
    @State(Scope.Benchmark)
    public static class Heap {
        double[] a;
        double[] b;

        @Setup
        public void setup(Signal s) {
            SplittableRandom r1 = new SplittableRandom(1);
            SplittableRandom r2 = new SplittableRandom(2);
            a = new double[s.samples];
            b = new double[s.samples];
            for (int i = 0; i < s.samples; i++) {
                a[i] = r1.nextDouble(-1, 1);
                b[i] = r2.nextDouble(-1, 1);
            }
        }
    }

    /** The seed's traditional storage: mapped ByteBuffer chunks from a recycling free list. */
    @State(Scope.Benchmark)
    public static class Buffers {
        ByteBufferChunks storage;
        ByteBuffer[] a;
        ByteBuffer[] b;
        int shift;
        int mask;
        int samples;

        @Setup
        public void setup(Signal s) {
            storage = new ByteBufferChunks(Path.of(System.getProperty("java.io.tmpdir")), ArrayAccessBench.CHUNK);
            samples = s.samples;
            shift = storage.shift() - 3;
            mask = (1 << shift) - 1;
            a = noise(1);
            b = noise(2);
        }

        private ByteBuffer[] noise(long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            ByteBuffer[] chunks = storage.allocate((long) samples * 8);
            for (int i = 0; i < samples; i++) {
                chunks[i >>> shift].putDouble((i & mask) << 3, r.nextDouble(-1, 1));
            }
            return chunks;
        }

        @TearDown
        public void tearDown() throws IOException {
            storage.close();
        }
    }

    @Benchmark
    public double mixSegmented(Segmented s) {
        try (DoubleArray mixed = Mix.mix(s.pool, s.a, s.b)) {
            return mixed.get(mixed.length() - 1);
        }
    }

    @Benchmark
    public double[] mixHeap(Heap h) {
        double[] a = h.a;
        double[] b = h.b;
        double[] out = new double[a.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = a[i] + b[i];
        }
        return out;
    }

    @Benchmark
    public double mixBuffers(Buffers s) {
        ByteBuffer[] out = s.storage.allocate((long) s.samples * 8);
        ByteBuffer[] a = s.a;
        ByteBuffer[] b = s.b;
        int shift = s.shift;
        int mask = s.mask;
        for (int i = 0; i < s.samples; i++) {
            int c = i >>> shift;
            int off = (i & mask) << 3;
            out[c].putDouble(off, a[c].getDouble(off) + b[c].getDouble(off));
        }
        double last = out[(s.samples - 1) >>> shift].getDouble(((s.samples - 1) & mask) << 3);
        s.storage.release(out);
        return last;
    }
}
