package dev.colossal.array;

import dev.colossal.memory.SparseFiles;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every big array shares: a long length, memory in power-of-two chunks, reference counting.
 *
 * <p>Element {@code i} lives in chunk {@code i >>> shift} at byte offset {@code (i & mask) << elementShift}.
 * Segmented arrays have pool-sized chunks; a contiguous array is a single chunk; a sparse array has
 * one chunk per file. Hot loops should work one chunk at a time ({@link #chunk(int)}): inside a chunk
 * the JIT hoists FFM's bounds and liveness checks out of the loop.
 *
 * <p>An array starts with one reference. {@link #retain()} adds one, {@link #release()} (or
 * {@link #close()}) drops one; the last release returns the memory. Any use after that throws
 * {@link IllegalStateException}, never a crash; so does a release too many, but closing an array
 * that is released already does nothing. Concurrent reads and writes of distinct elements
 * are fine; as with Java arrays, racing writes to one element need outside synchronisation.
 *
 * <p>A sparse array reserves no disk: a write into a part never written before needs a free block,
 * and on a full file system it faults (see {@link SparseFiles}). {@code fill}, {@code copyFrom} and
 * {@link #copy} into it then throw {@link java.io.UncheckedIOException} naming the directory ("disk
 * full?"); {@code set} and writes through {@link #chunk(int) chunk} segments throw the JVM's
 * {@link InternalError} for it.
 *
 * <p>The memory of an array belongs to a pool or an arena. If that is closed while the array is still
 * held (a {@link dev.colossal.memory.ChunkPool} closed before its arrays, or the
 * {@link dev.colossal.swap.SwapSpace} that owns the pool), {@link #chunk(int) chunk}, {@code fill},
 * the copies and {@code stream} throw an {@link IllegalStateException} that says what was closed.
 * {@code get}, {@code set} and segments obtained before throw the JDK's bare
 * {@code IllegalStateException: Already closed}: checking for it on every element would slow every
 * access down.
 */
public abstract sealed class BigArray implements AutoCloseable
        permits ByteArray, DoubleArray, FloatArray, IntArray, LongArray {

    /** The chunks; the last one may be longer than the array needs. */
    final MemorySegment[] chunks;
    /** log2 of elements per chunk. */
    final int shift;
    /** elements per chunk minus one. */
    final long mask;
    final int elementShift;
    private final long length;
    /** {@link #length} while alive, 0 once released: the one comparison on the hot path covers both. */
    long limit;
    /**
     * All elements as one segment, else null: the only chunk of a contiguous array, or the run of a
     * segmented array whose chunks lie back to back in one pool region (what a fresh pool hands out).
     * A final field the JIT can hoist: a loop then sees one loop-invariant segment, and a random access
     * costs no offset lookup, which matters because the fewer instructions each access takes, the more
     * cache misses the core keeps in flight.
     */
    final MemorySegment single;
    /**
     * For segmented arrays whose chunks all lie in one pool region: that region, else null. Like
     * {@link #single}, a loop-invariant segment, so the per-element cost is one offset lookup.
     */
    final MemorySegment region;
    /** With {@link #region}: where each chunk starts in it. */
    final long[] chunkOffsets;
    private final AtomicInteger references = new AtomicInteger(1);
    private final Runnable onRelease;
    private final boolean readOnly;
    /** The sparse files behind the chunks, else null. */
    private final SparseFiles sparse;
    /** What the memory belongs to, else null; see {@link Storage#owner()}. */
    private final Object owner;

    BigArray(Storage storage, long length, int elementShift) {
        this.chunks = storage.chunks();
        this.elementShift = elementShift;
        this.shift = storage.chunkShift() - elementShift;
        this.mask = (1L << shift) - 1;
        this.length = length;
        this.limit = length;
        this.onRelease = storage.onRelease();
        this.single = storage.chunkShift() == Storage.SINGLE_CHUNK_SHIFT ? chunks[0]
                : storage.run(length << elementShift);
        this.region = storage.region();
        this.chunkOffsets = storage.chunkOffsets();
        this.readOnly = chunks.length > 0 && chunks[0].isReadOnly();
        this.sparse = storage.sparse();
        this.owner = storage.owner();
    }

    /**
     * A read-only view of the same elements: reads see this array's memory, every write (set,
     * fill, copy into it, a write through a {@link #chunk(int) chunk} segment) throws
     * {@link IllegalArgumentException} ("Attempt to write a read-only segment"). The view holds a
     * reference to this array until the view is released, so it can be handed to code that must
     * only read.
     *
     * @return the view, with one reference that the caller owns
     * @throws IllegalStateException if this array was released
     */
    public abstract BigArray readOnly();

    /** The storage of a {@link #readOnly()} view: retains this array, which the view's release lets go. */
    final Storage readOnlyStorage() {
        retain();
        MemorySegment[] views = new MemorySegment[chunks.length];
        for (int i = 0; i < views.length; i++) {
            views[i] = chunks[i].asReadOnly();
        }
        return new Storage(views, shift + elementShift, region == null ? null : region.asReadOnly(), chunkOffsets,
                this::release, sparse, owner);
    }

    /** @return whether writes throw: a {@link #readOnly()} view, or an array over read-only memory */
    public final boolean isReadOnly() {
        return readOnly;
    }

    /**
     * The hot path's bounds check: {@code Objects.checkIndex} is an intrinsic that range-check
     * elimination understands, so a counted loop pays it once; the slow path tells release from misuse.
     */
    final void checkIndex(long index) {
        try {
            Objects.checkIndex(index, limit);
        } catch (IndexOutOfBoundsException e) {
            throw indexFailure(index);
        }
    }

    /** @return the number of elements */
    public final long length() {
        return length;
    }

    /** @return the number of bytes the elements occupy */
    public final long byteSize() {
        return length << elementShift;
    }

    /** @return the element layout's size in bytes */
    public final int elementSize() {
        return 1 << elementShift;
    }

    /**
     * Adds a reference: the memory stays until every reference is released.
     *
     * @throws IllegalStateException if the array was already released
     */
    public final void retain() {
        int n;
        do {
            n = references.get();
            if (n <= 0) {
                throw released();
            }
        } while (!references.compareAndSet(n, n + 1));
    }

    /**
     * Drops a reference; the last one returns the memory (to the pool, or unmaps it).
     *
     * @return {@code true} if this was the last reference and the memory is gone
     * @throws IllegalStateException if the array was already released
     */
    public final boolean release() {
        int before = drop();
        if (before == 0) {
            throw released();
        }
        return before == 1;
    }

    /**
     * Same as {@link #release()}, for {@code try (var a = ...) { }}, which drops the creator's
     * reference, except that closing an array whose last reference is gone does nothing, as closing
     * any resource twice should. Closing is releasing: the array cannot tell which holder closes, so
     * a holder that closes twice while others still hold references drops one of theirs, as
     * releasing twice would.
     */
    @Override
    public final void close() {
        drop();
    }

    /** Drops a reference, the last one returning the memory; returns the references before, 0 if none was left. */
    private int drop() {
        int n;
        do {
            n = references.get();
            if (n <= 0) {
                return 0;
            }
        } while (!references.compareAndSet(n, n - 1));
        if (n == 1) {
            limit = 0;
            onRelease.run();
        }
        return n;
    }

    /** @return whether the last reference was released */
    public final boolean isReleased() {
        return references.get() <= 0;
    }

    /** @return the current number of references (0 once released) */
    public final int references() {
        return Math.max(0, references.get());
    }

    /** @return how many chunks hold the elements (0 for an empty array) */
    public final int chunkCount() {
        return length == 0 ? 0 : (int) ((length - 1) >>> shift) + 1;
    }

    /** @return elements per chunk: every chunk but the last holds this many (a contiguous array: its length) */
    public final long elementsPerChunk() {
        return shift == Storage.SINGLE_CHUNK_SHIFT - elementShift ? length : 1L << shift;
    }

    /**
     * The bytes of one chunk that hold elements, for loops that work a chunk at a time.
     *
     * @param chunk the chunk's number, {@code 0 <= chunk < chunkCount()}
     * @return a segment starting at element {@link #chunkFirstIndex(int) chunkFirstIndex(chunk)}
     * @throws IndexOutOfBoundsException if the chunk number is out of range
     * @throws IllegalStateException     if the array was released, or its memory unmapped (its pool closed)
     */
    public final MemorySegment chunk(int chunk) {
        checkUsable();
        Objects.checkIndex(chunk, chunkCount());
        long first = (long) chunk << shift;
        long count = Math.min(length - first, 1L << Math.min(shift, 62));
        return chunks[chunk].asSlice(0, count << elementShift);
    }

    /**
     * @param chunk the chunk's number
     * @return the index of the chunk's first element
     */
    public final long chunkFirstIndex(int chunk) {
        Objects.checkIndex(chunk, Math.max(chunkCount(), 1));
        return (long) chunk << shift;
    }

    final void checkAlive() {
        if (limit == 0 && isReleased()) {
            throw released();
        }
    }

    /** {@link #checkAlive()}, and that the memory was not unmapped under the array: once per call, not per element. */
    final void checkUsable() {
        checkAlive();
        if (chunks.length > 0 && !chunks[0].scope().isAlive()) {
            throw unmapped(null);
        }
    }

    /**
     * The slow path of an {@link IllegalStateException} from a bulk access: if the memory was unmapped
     * under the array (its pool or arena closed), an exception that says so; else {@code cause} as it is.
     */
    final IllegalStateException unmapped(IllegalStateException cause) {
        if (chunks.length > 0 && chunks[0].scope().isAlive()) {
            return cause;
        }
        return new IllegalStateException(getClass().getSimpleName() + " of length=" + length + " cannot be used:"
                + " its memory is unmapped, because " + Storage.closedOwner(owner), cause);
    }

    /** What a bulk write throws for a fault: {@link #writeFault} or {@link #unmapped}, by its kind. */
    final RuntimeException bulkWriteFault(Throwable fault) {
        return fault instanceof InternalError e ? writeFault(e) : unmapped((IllegalStateException) fault);
    }

    final IllegalStateException released() {
        return new IllegalStateException(getClass().getSimpleName() + " of length=" + length
                + " was released; retain() it for as long as you use it");
    }

    /** The slow path of a failed bounds check: released, or a bad index. */
    final RuntimeException indexFailure(long index) {
        if (isReleased()) {
            return released();
        }
        return new IndexOutOfBoundsException("index=" + index + " out of bounds for length=" + length);
    }

    /**
     * What a bulk write that faulted throws: over sparse files, a write into a hole on a full file
     * system faults (SIGBUS, reported by the JVM as this InternalError), so it says so and where;
     * any other error as it is.
     */
    final RuntimeException writeFault(InternalError fault) {
        String message = fault.getMessage();
        if (sparse == null || message == null || !message.contains("unsafe memory access")) {
            throw fault;
        }
        return sparse.writeFault(fault);
    }

    final void checkRange(long from, long count) {
        if (count < 0 || from < 0 || from > limit - count) {
            if (isReleased()) {
                throw released();
            }
            throw new IndexOutOfBoundsException("range from=" + from + " count=" + count
                    + " out of bounds for length=" + length);
        }
    }

    /** Byte offset of element {@code index} within its chunk. */
    final long offset(long index) {
        return (index & mask) << elementShift;
    }

    final MemorySegment chunkOf(long index) {
        return chunks[(int) (index >>> shift)];
    }

    /**
     * Sets {@code count} elements from {@code from} to the low {@link #elementSize} bytes of
     * {@code bits} (a float or double by its raw bits: the bytes its own layout would store), a
     * chunk at a time: one store loop per element width, chosen once per chunk, serves every type.
     */
    final void fillBits(long from, long count, long bits) {
        checkRange(from, count);
        try {
            while (count > 0) {
                MemorySegment chunk = chunkOf(from);
                long start = offset(from);
                long n = Math.min(count, (mask + 1) - (from & mask));
                long stop = start + (n << elementShift);
                switch (elementShift) {
                    case 0 -> {
                        for (long off = start; off < stop; off++) {
                            chunk.set(ByteArray.LAYOUT, off, (byte) bits);
                        }
                    }
                    case 2 -> {
                        for (long off = start; off < stop; off += Integer.BYTES) {
                            chunk.set(IntArray.LAYOUT, off, (int) bits);
                        }
                    }
                    default -> { // 3: long and double
                        for (long off = start; off < stop; off += Long.BYTES) {
                            chunk.set(LongArray.LAYOUT, off, bits);
                        }
                    }
                }
                from += n;
                count -= n;
            }
        } catch (InternalError | IllegalStateException e) {
            throw bulkWriteFault(e);
        }
    }

    /** Copies {@code count} elements to a Java array through {@code layout}, a chunk at a time. */
    final void copyToArray(long index, Object array, int arrayOffset, int count, ValueLayout layout) {
        checkRange(index, count);
        Objects.checkFromIndexSize(arrayOffset, count, java.lang.reflect.Array.getLength(array));
        try {
            while (count > 0) {
                int n = (int) Math.min(count, (mask + 1) - (index & mask));
                MemorySegment.copy(chunkOf(index), layout, offset(index), array, arrayOffset, n);
                index += n;
                arrayOffset += n;
                count -= n;
            }
        } catch (IllegalStateException e) {
            throw unmapped(e);
        }
    }

    /** Copies {@code count} elements from a Java array through {@code layout}, a chunk at a time. */
    final void copyFromArray(Object array, int arrayOffset, long index, int count, ValueLayout layout) {
        checkRange(index, count);
        Objects.checkFromIndexSize(arrayOffset, count, java.lang.reflect.Array.getLength(array));
        try {
            while (count > 0) {
                int n = (int) Math.min(count, (mask + 1) - (index & mask));
                MemorySegment.copy(array, arrayOffset, chunkOf(index), layout, offset(index), n);
                index += n;
                arrayOffset += n;
                count -= n;
            }
        } catch (InternalError | IllegalStateException e) {
            throw bulkWriteFault(e);
        }
    }

    /**
     * Copies {@code count} elements to a segment, starting at byte {@code segmentOffset}, in the platform's
     * byte order.
     *
     * @param index         first element
     * @param target        the segment
     * @param segmentOffset byte offset in the segment
     * @param count         elements
     * @throws IndexOutOfBoundsException if a range is out of bounds
     * @throws IllegalStateException     if the array was released
     */
    public final void copyTo(long index, MemorySegment target, long segmentOffset, long count) {
        checkRange(index, count);
        try {
            while (count > 0) {
                long n = Math.min(count, (mask + 1) - (index & mask));
                MemorySegment.copy(chunkOf(index), offset(index), target, segmentOffset, n << elementShift);
                index += n;
                segmentOffset += n << elementShift;
                count -= n;
            }
        } catch (IllegalStateException e) {
            throw unmapped(e);
        }
    }

    /**
     * Copies {@code count} elements from a segment, starting at byte {@code segmentOffset}, in the
     * platform's byte order.
     *
     * @param source        the segment
     * @param segmentOffset byte offset in the segment
     * @param index         first element to write
     * @param count         elements
     * @throws IndexOutOfBoundsException if a range is out of bounds
     * @throws IllegalStateException     if the array was released
     * @throws java.io.UncheckedIOException if the array is sparse and the disk filled up (see {@link SparseFiles})
     */
    public final void copyFrom(MemorySegment source, long segmentOffset, long index, long count) {
        checkRange(index, count);
        try {
            while (count > 0) {
                long n = Math.min(count, (mask + 1) - (index & mask));
                MemorySegment.copy(source, segmentOffset, chunkOf(index), offset(index), n << elementShift);
                index += n;
                segmentOffset += n << elementShift;
                count -= n;
            }
        } catch (InternalError | IllegalStateException e) {
            throw bulkWriteFault(e);
        }
    }

    /**
     * Copies elements between two arrays of the same element type, chunk piece by chunk piece. Overlapping
     * ranges of one array are copied as if through a temporary copy.
     *
     * @param source      the array to read
     * @param sourceIndex first element to read
     * @param target      the array to write
     * @param targetIndex first element to write
     * @param count       elements
     * @throws IllegalArgumentException  if the element types differ
     * @throws IndexOutOfBoundsException if a range is out of bounds
     * @throws IllegalStateException     if either array was released
     * @throws java.io.UncheckedIOException if the target is sparse and the disk filled up (see {@link SparseFiles})
     */
    public static void copy(BigArray source, long sourceIndex, BigArray target, long targetIndex, long count) {
        if (source.getClass() != target.getClass()) {
            throw new IllegalArgumentException("cannot copy from " + source.getClass().getSimpleName() + " to "
                    + target.getClass().getSimpleName());
        }
        source.checkRange(sourceIndex, count);
        target.checkRange(targetIndex, count);
        try {
            copyChunks(source, sourceIndex, target, targetIndex, count);
        } catch (InternalError e) {
            throw target.writeFault(e);
        } catch (IllegalStateException e) {
            IllegalStateException explained = source.unmapped(e);
            throw explained != e ? explained : target.unmapped(e);
        }
    }

    private static void copyChunks(BigArray source, long sourceIndex, BigArray target, long targetIndex, long count) {
        int es = source.elementShift;
        if (source == target && targetIndex > sourceIndex && targetIndex < sourceIndex + count) {
            // Overlap with the target ahead: walk backwards so no element is overwritten before it is read.
            long s = sourceIndex + count;
            long t = targetIndex + count;
            while (count > 0) {
                long n = Math.min(count, Math.min(((s - 1) & source.mask) + 1, ((t - 1) & target.mask) + 1));
                s -= n;
                t -= n;
                MemorySegment.copy(source.chunkOf(s), source.offset(s), target.chunkOf(t), target.offset(t), n << es);
                count -= n;
            }
            return;
        }
        while (count > 0) {
            long n = Math.min(count, Math.min((source.mask + 1) - (sourceIndex & source.mask),
                    (target.mask + 1) - (targetIndex & target.mask)));
            MemorySegment.copy(source.chunkOf(sourceIndex), source.offset(sourceIndex),
                    target.chunkOf(targetIndex), target.offset(targetIndex), n << es);
            sourceIndex += n;
            targetIndex += n;
            count -= n;
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[length=" + length + ", chunks=" + chunkCount()
                + (isReleased() ? ", released" : "") + "]";
    }
}
