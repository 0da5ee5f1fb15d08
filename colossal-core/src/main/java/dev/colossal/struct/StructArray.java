package dev.colossal.struct;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * N structs of one {@link StructType}, one after another at a stride of {@code type.byteSize()},
 * over one segment or over a sequence of power-of-two chunks (no struct straddles two chunks).
 *
 * <p>For an interface type, {@link #at} moves a flyweight to an element: the loop
 * {@code array.at(f, i).price()} allocates nothing. For a record type, {@link #get} and
 * {@link #set} copy records in and out. Indices are checked; memory liveness and bounds are
 * FFM's own checks.
 *
 * @param <T> the struct's record or interface type
 */
public abstract sealed class StructArray<T> permits StructArray.Contiguous, StructArray.Chunked {

    final StructType<T> type;
    final long length;
    final long stride;

    StructArray(StructType<T> type, long length) {
        this.type = type;
        this.length = length;
        this.stride = type.byteSize();
    }

    /**
     * Allocates an array of {@code length} zeroed structs in {@code arena}.
     *
     * @param type   the struct type
     * @param length the number of elements
     * @param arena  the arena that owns the memory
     * @param <T>    the struct's type
     * @return the array
     * @throws IllegalArgumentException if {@code length} is negative or the size overflows
     */
    public static <T> StructArray<T> allocate(StructType<T> type, long length, Arena arena) {
        if (length < 0 || length > Long.MAX_VALUE / type.byteSize()) {
            throw new IllegalArgumentException("length=" + length + " must be in 0.." + Long.MAX_VALUE / type.byteSize());
        }
        return new Contiguous<>(type, arena.allocate(type.layout(), length), length);
    }

    /**
     * Views a segment as an array of as many structs as fit in it.
     *
     * @param type    the struct type
     * @param segment the memory, aligned to {@code type.layout().byteAlignment()}
     * @param <T>     the struct's type
     * @return the array over the segment
     * @throws IllegalArgumentException if the segment is misaligned for the struct
     */
    public static <T> StructArray<T> wrap(StructType<T> type, MemorySegment segment) {
        checkAligned(type, segment, "segment");
        return new Contiguous<>(type, segment, segment.byteSize() / type.byteSize());
    }

    /**
     * Views chunks of {@code 1 << chunkShift} bytes as one array: each chunk holds
     * {@code chunkSize / stride} structs, the rest of the chunk is unused.
     *
     * @param type       the struct type
     * @param chunks     the chunks, each at least {@code 1 << chunkShift} bytes and aligned for the struct
     * @param chunkShift log2 of the chunk size
     * @param length     the number of elements
     * @param <T>        the struct's type
     * @return the array over the chunks
     * @throws IllegalArgumentException if a chunk is too small for one struct, too few chunks are given,
     *                                  or a chunk is misaligned
     */
    public static <T> StructArray<T> overChunks(StructType<T> type, MemorySegment[] chunks, int chunkShift, long length) {
        if (chunkShift < 0 || chunkShift > 62 || (1L << chunkShift) < type.byteSize()) {
            throw new IllegalArgumentException("chunkShift=" + chunkShift + " gives chunks smaller than one struct of "
                    + type.byteSize() + " bytes; use a larger chunk");
        }
        long perChunk = (1L << chunkShift) / type.byteSize();
        long needed = (length + perChunk - 1) / perChunk;
        if (length < 0 || chunks.length < needed) {
            throw new IllegalArgumentException("length=" + length + " needs " + needed + " chunks of " + perChunk
                    + " structs, but chunks.length=" + chunks.length);
        }
        for (int i = 0; i < chunks.length; i++) {
            checkAligned(type, chunks[i], "chunks[" + i + "]");
            if (chunks[i].byteSize() < perChunk * type.byteSize()) {
                throw new IllegalArgumentException("chunks[" + i + "].byteSize=" + chunks[i].byteSize()
                        + " is smaller than the chunk size " + (1L << chunkShift));
            }
        }
        return new Chunked<>(type, chunks.clone(), perChunk, length);
    }

    /**
     * Returns the struct type.
     *
     * @return the type of every element
     */
    public final StructType<T> type() {
        return type;
    }

    /**
     * Returns the number of elements.
     *
     * @return the length
     */
    public final long length() {
        return length;
    }

    /**
     * Creates a flyweight to move over this array with {@link #at}; make one per thread and reuse it.
     *
     * @return a new flyweight, pointing nowhere yet
     * @throws UnsupportedOperationException if the struct type is a record
     */
    public final T flyweight() {
        return type.flyweight();
    }

    /**
     * Moves {@code flyweight} to element {@code index}; allocates nothing.
     *
     * @param flyweight a flyweight of this array's type (from {@link #flyweight()})
     * @param index     the element, {@code 0 <= index < length()}
     * @return the same flyweight, now at the element
     * @throws IndexOutOfBoundsException if the index is out of range
     */
    public abstract T at(T flyweight, long index);

    /**
     * Copies element {@code index} out as a record.
     *
     * @param index the element
     * @return a new record with the element's values
     * @throws IndexOutOfBoundsException if the index is out of range
     * @throws UnsupportedOperationException if the struct type is an interface
     */
    public abstract T get(long index);

    /**
     * Copies a record into element {@code index}.
     *
     * @param index the element
     * @param value the record
     * @throws IndexOutOfBoundsException if the index is out of range
     * @throws UnsupportedOperationException if the struct type is an interface
     * @throws IllegalArgumentException if a field does not fit ({@link StructType#write}); the element is
     *                                  left as it was
     */
    public abstract void set(long index, T value);

    private static void checkAligned(StructType<?> type, MemorySegment segment, String name) {
        Objects.requireNonNull(segment, name);
        long alignment = type.layout().byteAlignment();
        if (segment.maxByteAlignment() < alignment) {
            throw new IllegalArgumentException(name + " is not aligned to " + alignment + " bytes as struct "
                    + type.javaType().getSimpleName() + " needs; allocate it with the struct's layout");
        }
    }

    /** All elements in one segment. */
    static final class Contiguous<T> extends StructArray<T> {
        private final MemorySegment segment;

        Contiguous(StructType<T> type, MemorySegment segment, long length) {
            super(type, length);
            this.segment = segment;
        }

        @Override
        public T at(T flyweight, long index) {
            ((Flyweight) flyweight).moveTo(segment, Objects.checkIndex(index, length) * stride);
            return flyweight;
        }

        @Override
        public T get(long index) {
            return type.read(segment, Objects.checkIndex(index, length) * stride);
        }

        @Override
        public void set(long index, T value) {
            type.write(value, segment, Objects.checkIndex(index, length) * stride);
        }
    }

    /** Elements over power-of-two chunks; shifts when the per-chunk count is a power of two too. */
    static final class Chunked<T> extends StructArray<T> {
        private final MemorySegment[] chunks;
        private final long perChunk;
        private final int perChunkShift;

        Chunked(StructType<T> type, MemorySegment[] chunks, long perChunk, long length) {
            super(type, length);
            this.chunks = chunks;
            this.perChunk = perChunk;
            this.perChunkShift = Long.bitCount(perChunk) == 1 ? Long.numberOfTrailingZeros(perChunk) : -1;
        }

        @Override
        public T at(T flyweight, long index) {
            Objects.checkIndex(index, length);
            long chunk = perChunkShift >= 0 ? index >>> perChunkShift : index / perChunk;
            ((Flyweight) flyweight).moveTo(chunks[(int) chunk], (index - chunk * perChunk) * stride);
            return flyweight;
        }

        @Override
        public T get(long index) {
            Objects.checkIndex(index, length);
            long chunk = index / perChunk;
            return type.read(chunks[(int) chunk], (index - chunk * perChunk) * stride);
        }

        @Override
        public void set(long index, T value) {
            Objects.checkIndex(index, length);
            long chunk = index / perChunk;
            type.write(value, chunks[(int) chunk], (index - chunk * perChunk) * stride);
        }
    }
}
