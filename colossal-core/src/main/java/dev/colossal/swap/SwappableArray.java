package dev.colossal.swap;

import dev.colossal.array.BigArray;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A big array held by a {@link SwapSpace}. {@link #acquire()} pins it in memory, swapping it in
 * first if needed; closing (releasing) what it returned unpins it.
 *
 * <pre>{@code
 * SwappableArray<DoubleArray> signal = space.allocate(DoubleArray.class, 1L << 27);
 * try (DoubleArray samples = signal.acquire()) {   // pinned: never swapped out while held
 *     samples.set(0, 0.5);
 * }                                               // unpinned: may go to disk when memory is needed
 * }</pre>
 *
 * <p>Two pins: {@link #acquireReadOnly()} for reading, {@link #acquire()} for writing. An array read
 * back from the swap file keeps its block there for as long as it is only read, so evicting it
 * again costs no write; a writable pin gives the block up. The read-only pin hands out a view whose
 * every write throws, so no change can slip past this bookkeeping.
 *
 * <p>Pinning is the arrays' own reference count: {@code acquire()} is {@link BigArray#retain()}, and
 * the array is evictable only while the handle holds the one reference left (a read-only view holds
 * one too). An array acquired for writing while it is being written out stays in memory (the write
 * is discarded), so changes made through it are never lost; one acquired read-only meanwhile stays
 * in memory too, clean, its block written.
 *
 * @param <A> the array type
 */
public final class SwappableArray<A extends BigArray> extends Swappable {

    private final Class<A> type;

    SwappableArray(SwapSpace space, long id, Class<A> type, long byteSize, A value, long offset) {
        super(space, id, Kind.of(type), byteSize, value, offset);
        this.type = type;
    }

    /**
     * Pins the array in memory for writing and returns it, swapping it in first (on this thread) if it
     * is on disk. Close the array (or {@link BigArray#release()} it) to unpin it. Writes through the
     * array cannot be seen by the space, so this access counts as one: the copy in the swap file, if
     * any, is dropped and the next eviction writes the array out. To only read, use
     * {@link #acquireReadOnly()}, which keeps that copy.
     *
     * @return the array, with one more reference that the caller owns
     * @throws IllegalStateException  if the handle or its space is closed
     * @throws SwapCorruptedException if the swapped copy is damaged
     * @throws SwapException          if the swap file cannot be read or the budget cannot make room
     */
    public A acquire() {
        return type.cast(space.access(this, SwapSpace.Pin.WRITE));
    }

    /**
     * Pins the array in memory for reading and returns a read-only view of it, swapping it in first
     * if it is on disk. Unlike {@link #acquire()} it leaves the object clean: if it was read back
     * from the swap file and only ever acquired read-only since, evicting it again writes nothing,
     * it only gives the memory back. Every write through the view (set, fill, copy into it, a
     * chunk's segment) throws {@link IllegalArgumentException}. Close the view to unpin.
     *
     * @return a read-only view of the array, with a reference that the caller owns
     * @throws IllegalStateException  if the handle or its space is closed
     * @throws SwapCorruptedException if the swapped copy is damaged
     * @throws SwapException          if the swap file cannot be read or the budget cannot make room
     */
    public A acquireReadOnly() {
        return type.cast(space.access(this, SwapSpace.Pin.READ));
    }

    /** @return the array's type */
    public Class<A> type() {
        return type;
    }

    @Override
    boolean pinned(Object resident) {
        return ((BigArray) resident).references() > 1;
    }

    @Override
    MemorySegment[] payload(Object resident, Arena arena) {
        BigArray array = (BigArray) resident;
        MemorySegment[] parts = new MemorySegment[array.chunkCount()];
        for (int c = 0; c < parts.length; c++) {
            parts[c] = array.chunk(c);
        }
        return parts;
    }

    @Override
    Object load(SwapFile file, long blockOffset) throws IOException {
        BigArray array = kind.allocateForRead(space.pool(), byteSize);
        try {
            file.read(blockOffset, id, payload(array, null), byteSize);
            return array;
        } catch (IOException | RuntimeException e) {
            array.release();
            throw e;
        }
    }

    @Override
    void drop(Object resident) {
        ((BigArray) resident).release();
    }
}
