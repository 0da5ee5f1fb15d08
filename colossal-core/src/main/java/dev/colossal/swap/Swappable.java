package dev.colossal.swap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A large object held by a {@link SwapSpace}: in memory while it is used, in the swap file when the
 * space needs its memory for something else, and back on the next access, transparently.
 *
 * <p>State changes are guarded by the space's lock; the swap I/O itself runs outside it.
 */
public abstract sealed class Swappable implements AutoCloseable permits SwappableArray, SwappableObject {

    /** Where the object is. Guarded by the space's lock. */
    enum State { RESIDENT, WRITING, SWAPPED, READING, CLOSED }

    final SwapSpace space;
    final long id;
    final Kind kind;
    final long byteSize;
    State state;
    /** The resident value (a big array or an object), null while swapped out. */
    Object value;
    /**
     * The offset of a block in the swap file that holds the object as it is, else -1: set while it is
     * swapped out, and also while it is resident and clean (read back and not written since), so
     * that evicting it again only drops the memory. Anything that may write makes it -1 (dirty).
     */
    long offset = -1;
    /** Bumped by every access while a write is in flight: a write that saw a bump is not committed. */
    long accesses;

    Swappable(SwapSpace space, long id, Kind kind, long byteSize, Object value, long offset) {
        this.space = space;
        this.id = id;
        this.kind = kind;
        this.byteSize = byteSize;
        this.value = value;
        this.offset = offset;
        this.state = value != null ? State.RESIDENT : State.SWAPPED;
    }

    /** @return the object's id in its space, unique and kept across reopening a persistent space */
    public final long id() {
        return id;
    }

    /** @return the bytes the object occupies in memory and, as payload, in the swap file */
    public final long byteSize() {
        return byteSize;
    }

    /** @return whether the object is in memory now (including while a swap-out is being written) */
    public final boolean isResident() {
        return space.isResident(this);
    }

    /**
     * Starts bringing the object into memory on a background thread, so that a later access does not
     * wait for the disk. Does nothing if it is resident or already coming in; a failure is reported by
     * that later access.
     *
     * @throws IllegalStateException if the handle or its space is closed
     */
    public final void prefetch() {
        space.prefetch(this);
    }

    /**
     * Writes the object to the swap file now and frees its memory, waiting until that is done.
     * Does nothing if it is swapped out already.
     *
     * @throws IllegalStateException if the object is pinned (an array acquired and not released), or closed
     * @throws SwapException         if the write fails (for example the disk is full); the object stays in memory
     */
    public final void swapOut() {
        space.swapOutNow(this);
    }

    /**
     * Drops the object: its memory (once no one else holds it) and its block in the swap file.
     * Idempotent.
     */
    @Override
    public final void close() {
        space.free(this);
    }

    /** @return whether a user holds the value beyond the handle's own reference */
    abstract boolean pinned(Object resident);

    /**
     * @return the payload of a resident value, as segments in order; temporary memory comes from
     *     {@code arena}. An encoded object is encoded now, so its payload differs from
     *     {@link #byteSize} if the value was changed since it was stored.
     */
    abstract MemorySegment[] payload(Object resident, Arena arena);

    /** Reads the payload back and rebuilds the value. */
    abstract Object load(SwapFile file, long blockOffset) throws IOException;

    /** Lets go of the handle's reference to a value that was swapped out or freed. */
    abstract void drop(Object resident);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[id=" + id + ", kind=" + kind + ", byteSize=" + byteSize + "]";
    }
}
