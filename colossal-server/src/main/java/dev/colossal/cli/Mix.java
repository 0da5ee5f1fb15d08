package dev.colossal.cli;

import dev.colossal.array.DoubleArray;
import dev.colossal.memory.ChunkPool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The Mix workload of Sonic Field (seed article 000): two realised white-noise signals are mixed,
 * sample by sample, into a new realised signal, over and over; each new signal takes chunks from the
 * pool and the one it replaces gives them back, so after warm-up nothing is mapped any more.
 */
public final class Mix {

    private static final ValueLayout.OfDouble SAMPLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private Mix() {}

    /**
     * @param pool    where the signal's chunks come from
     * @param samples the signal's length
     * @param seed    the noise's seed
     * @return a signal of uniform white noise in [-1, 1)
     */
    public static DoubleArray whiteNoise(ChunkPool pool, long samples, long seed) {
        DoubleArray signal = DoubleArray.segmented(pool, samples);
        SplittableRandom random = new SplittableRandom(seed);
        for (int c = 0; c < signal.chunkCount(); c++) {
            MemorySegment chunk = signal.chunk(c);
            for (long off = 0; off < chunk.byteSize(); off += Double.BYTES) {
                chunk.set(SAMPLE, off, random.nextDouble(-1, 1));
            }
        }
        return signal;
    }

    /**
     * Mixes two signals of equal length from the same pool into a new one, a chunk at a time.
     *
     * @param pool where the result's chunks come from
     * @param a    the first signal
     * @param b    the second signal
     * @return {@code a + b}, sample by sample; the caller releases it
     */
    public static DoubleArray mix(ChunkPool pool, DoubleArray a, DoubleArray b) {
        if (a.length() != b.length() || a.elementsPerChunk() != b.elementsPerChunk()) {
            throw new IllegalArgumentException("signals differ: lengths " + a.length() + " and " + b.length());
        }
        DoubleArray out = DoubleArray.segmentedUninitialized(pool, a.length()); // every sample is written below
        for (int c = 0; c < out.chunkCount(); c++) {
            MemorySegment o = out.chunk(c);
            MemorySegment x = a.chunk(c);
            MemorySegment y = b.chunk(c);
            long bytes = o.byteSize();
            for (long off = 0; off < bytes; off += Double.BYTES) {
                o.set(SAMPLE, off, x.get(SAMPLE, off) + y.get(SAMPLE, off));
            }
        }
        return out;
    }

    /**
     * @param signal a signal
     * @return the sum of its samples, a chunk at a time (a checksum independent of the storage)
     */
    public static double sum(DoubleArray signal) {
        double sum = 0;
        for (int c = 0; c < signal.chunkCount(); c++) {
            MemorySegment chunk = signal.chunk(c);
            for (long off = 0; off < chunk.byteSize(); off += Double.BYTES) {
                sum += chunk.get(SAMPLE, off);
            }
        }
        return sum;
    }
}
