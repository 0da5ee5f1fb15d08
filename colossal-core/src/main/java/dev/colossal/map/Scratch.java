package dev.colossal.map;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread native buffers for encoded keys and copied-out values, so lookups allocate nothing.
 * A thread that needs a second one while its own is in use (a compute function calling into
 * another map) gets a fresh one.
 */
final class Scratch {

    private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);
    private static final long INITIAL = 256;

    private final Arena arena = Arena.ofAuto();
    private MemorySegment key = arena.allocate(INITIAL, Long.BYTES);
    private MemorySegment value = arena.allocate(INITIAL, Long.BYTES);
    private boolean busy;

    static Scratch acquire() {
        Scratch s = LOCAL.get();
        if (s.busy) {
            return new Scratch();
        }
        s.busy = true;
        return s;
    }

    void release() {
        busy = false;
    }

    /** A buffer of exactly {@code size} bytes for a key. */
    MemorySegment key(long size) {
        if (size > key.byteSize()) {
            key = arena.allocate(Math.max(size, key.byteSize() * 2), Long.BYTES);
        }
        return key.asSlice(0, size);
    }

    /** Values larger than this are read into their own heap array, so no thread keeps a huge buffer. */
    static final long LARGE = 1 << 20;

    /**
     * A buffer of at least {@code size} bytes for a value: this thread's native buffer, or for a
     * {@link #LARGE} value a heap array of exactly {@code size} bytes.
     */
    MemorySegment value(long size) {
        if (size > LARGE) {
            return MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        }
        if (size > value.byteSize()) {
            value = arena.allocate(Math.max(size, value.byteSize() * 2), Long.BYTES);
        }
        return value;
    }
}
