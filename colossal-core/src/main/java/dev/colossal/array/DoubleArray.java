package dev.colossal.array;

import dev.colossal.memory.ChunkPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Spliterator;
import java.util.function.DoubleConsumer;
import java.util.stream.DoubleStream;
import java.util.stream.StreamSupport;

/**
 * A {@code double[]} with a {@code long} length, off the Java heap: segmented over pooled chunks,
 * contiguous in one mapping, or spread over sparse files. See {@link BigArray} for chunks and
 * reference counting.
 *
 * <pre>{@code
 * try (ChunkPool pool = ChunkPool.builder().build();
 *      DoubleArray signal = DoubleArray.segmented(pool, 3_000_000_000L)) {   // 24 GB, file-backed
 *     signal.set(2_999_999_999L, 0.5);
 *     double sum = signal.stream().parallel().sum();
 * }
 * }</pre>
 */
public final class DoubleArray extends BigArray {

    static final ValueLayout.OfDouble LAYOUT = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final int ELEMENT_SHIFT = 3;

    private DoubleArray(Storage storage, long length) {
        super(storage, length, ELEMENT_SHIFT);
    }

    /**
     * An array over chunks from {@code pool}, zeroed; the last release returns them to the pool.
     *
     * @param pool   where the chunks come from; its chunk size must hold at least one element
     * @param length the number of elements, {@code >= 0}
     * @return the array
     * @throws IllegalArgumentException if the length is negative
     * @throws dev.colossal.memory.PoolExhaustedException if the pool's limit is reached
     */
    public static DoubleArray segmented(ChunkPool pool, long length) {
        return new DoubleArray(Storage.segmented(pool, length, ELEMENT_SHIFT, true), length);
    }

    /**
     * Like {@link #segmented}, but chunks the pool hands back after earlier use are not cleared: for
     * callers that overwrite every element before reading any (a swap-in, a mix). Fresh memory still
     * reads as zero; reused memory holds whatever its last owner wrote.
     *
     * @param pool   where the chunks come from
     * @param length the number of elements, {@code >= 0}
     * @return the array
     * @throws IllegalArgumentException if the length is negative
     * @throws dev.colossal.memory.PoolExhaustedException if the pool's limit is reached
     */
    public static DoubleArray segmentedUninitialized(ChunkPool pool, long length) {
        return new DoubleArray(Storage.segmented(pool, length, ELEMENT_SHIFT, false), length);
    }

    /**
     * A contiguous array in one segment of the caller's arena, which decides when the memory goes.
     *
     * @param arena  for example a {@link dev.colossal.memory.MappedArena} or {@code Arena.ofShared()}
     * @param length the number of elements, {@code >= 0}
     * @return the array
     */
    public static DoubleArray contiguous(Arena arena, long length) {
        return new DoubleArray(Storage.contiguous(arena, length, ELEMENT_SHIFT), length);
    }

    /**
     * A contiguous array in a private file mapping, zeroed, unmapped and deleted on the last release.
     *
     * @param length the number of elements, {@code >= 0}
     * @return the array
     */
    public static DoubleArray contiguous(long length) {
        return new DoubleArray(Storage.contiguousMapped(length, ELEMENT_SHIFT), length);
    }

    /**
     * An array larger than one file may be, over sparse files of at most {@code maxFileBytes} in
     * a new directory of their own below {@code directory}, deleted on the last release (so arrays may
     * share a directory, and files already there are left alone). Untouched elements cost no disk, and
     * none is reserved: writing more than the disk holds faults, which bulk writes ({@code fill},
     * {@code copyFrom}, {@link #copy}) report as an {@link java.io.UncheckedIOException} ("disk full?")
     * and {@code set} as the JVM's {@link InternalError}; see {@link dev.colossal.memory.SparseFiles}.
     *
     * @param directory    where the files' directory goes
     * @param length       the number of elements
     * @param maxFileBytes the largest file, a power of two (ext4 allows up to 16 TiB)
     * @return the array
     */
    public static DoubleArray sparse(Path directory, long length, long maxFileBytes) {
        return new DoubleArray(Storage.sparse(directory, length, ELEMENT_SHIFT, maxFileBytes), length);
    }

    /**
     * A view of the caller's segment; releasing the array leaves the segment alone.
     *
     * @param segment a segment whose size is a multiple of 8 bytes
     * @return the array, of length {@code segment.byteSize() / 8}
     */
    public static DoubleArray wrap(MemorySegment segment) {
        return new DoubleArray(Storage.wrap(segment, ELEMENT_SHIFT), segment.byteSize() >>> ELEMENT_SHIFT);
    }

    @Override
    public DoubleArray readOnly() {
        return new DoubleArray(readOnlyStorage(), length());
    }

    /**
     * @param index the element's index
     * @return the element
     * @throws IndexOutOfBoundsException if {@code index} is out of bounds
     * @throws IllegalStateException     if the array was released
     */
    public double get(long index) {
        checkIndex(index);
        MemorySegment s = single;
        if (s != null) {
            return s.get(LAYOUT, index << ELEMENT_SHIFT);
        }
        MemorySegment r = region;
        if (r != null) {
            return r.get(LAYOUT, chunkOffsets[(int) (index >>> shift)] + ((index & mask) << ELEMENT_SHIFT));
        }
        return chunks[(int) (index >>> shift)].get(LAYOUT, (index & mask) << ELEMENT_SHIFT);
    }

    /**
     * @param index the element's index
     * @param value the new value
     * @throws IndexOutOfBoundsException if {@code index} is out of bounds
     * @throws IllegalStateException     if the array was released
     */
    public void set(long index, double value) {
        checkIndex(index);
        MemorySegment s = single;
        if (s != null) {
            s.set(LAYOUT, index << ELEMENT_SHIFT, value);
            return;
        }
        MemorySegment r = region;
        if (r != null) {
            r.set(LAYOUT, chunkOffsets[(int) (index >>> shift)] + ((index & mask) << ELEMENT_SHIFT), value);
            return;
        }
        chunks[(int) (index >>> shift)].set(LAYOUT, (index & mask) << ELEMENT_SHIFT, value);
    }

    /**
     * Sets every element to {@code value}.
     *
     * @param value the value
     * @throws IllegalStateException if the array was released
     */
    public void fill(double value) {
        fill(0, length(), value);
    }

    /**
     * Sets {@code count} elements from {@code from} to {@code value}, a chunk at a time.
     *
     * @param from  first element
     * @param count elements
     * @param value the value
     * @throws IndexOutOfBoundsException if the range is out of bounds
     * @throws IllegalStateException     if the array was released
     * @throws java.io.UncheckedIOException if the array is {@link #sparse sparse} and the disk filled up
     */
    public void fill(long from, long count, double value) {
        fillBits(from, count, Double.doubleToRawLongBits(value));
    }

    /**
     * Copies elements into a Java array.
     *
     * @param index       first element
     * @param target      the Java array
     * @param targetIndex where the first goes
     * @param count       elements
     * @throws IndexOutOfBoundsException if a range is out of bounds
     * @throws IllegalStateException     if the array was released
     */
    public void copyTo(long index, double[] target, int targetIndex, int count) {
        copyToArray(index, target, targetIndex, count, LAYOUT);
    }

    /**
     * Copies elements from a Java array.
     *
     * @param source      the Java array
     * @param sourceIndex first element to read
     * @param index       first element to write
     * @param count       elements
     * @throws IndexOutOfBoundsException if a range is out of bounds
     * @throws IllegalStateException     if the array was released
     */
    public void copyFrom(double[] source, int sourceIndex, long index, int count) {
        copyFromArray(source, sourceIndex, index, count, LAYOUT);
    }

    /**
     * @return a sequential stream of the elements; {@code .parallel()} splits it on chunk boundaries
     * @throws IllegalStateException if the array was released, or its memory unmapped (its pool closed)
     */
    public DoubleStream stream() {
        checkUsable();
        return StreamSupport.doubleStream(new Elements(this, 0, length()), false);
    }

    /** Walks a range a chunk at a time. */
    private static final class Elements extends ChunkSpliterator implements Spliterator.OfDouble {

        Elements(DoubleArray array, long index, long end) {
            super(array, index, end);
        }

        @Override
        public OfDouble trySplit() {
            long mid = splitPoint();
            if (mid < 0) {
                return null;
            }
            Elements prefix = new Elements((DoubleArray) array, index, mid);
            index = mid;
            return prefix;
        }

        @Override
        public boolean tryAdvance(DoubleConsumer action) {
            if (index >= end) {
                return false;
            }
            action.accept(((DoubleArray) array).get(index++));
            return true;
        }

        @Override
        public void forEachRemaining(DoubleConsumer action) {
            array.checkRange(index, end - index);
            while (index < end) {
                MemorySegment chunk = array.chunkOf(index);
                long n = Math.min(end - index, (array.mask + 1) - (index & array.mask));
                long start = array.offset(index);
                long stop = start + (n << ELEMENT_SHIFT);
                for (long off = start; off < stop; off += 1L << ELEMENT_SHIFT) {
                    action.accept(chunk.get(LAYOUT, off));
                }
                index += n;
            }
        }
    }
}
