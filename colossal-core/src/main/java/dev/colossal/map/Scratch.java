package dev.colossal.map;

import dev.colossal.memory.internal.SharedBuffers;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Per-thread native buffers for encoded keys and values, so lookups and writes allocate nothing:
 * even the exact-size views handed to codecs are made once per size and kept. A thread that needs
 * a second one while its own is in use (a compute function calling into another map) gets another
 * one. That one, and a virtual thread's for its first calls, is borrowed from a pool shared by all
 * threads for the operation (see {@link SharedBuffers#borrowing}): a virtual thread per request would
 * otherwise make one per request, with an {@code Arena.ofAuto} and its Cleaner.
 */
final class Scratch {

    private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);
    private static final SharedBuffers<Scratch> SHARED = new SharedBuffers<>();
    private static final int INITIAL = 256;
    /** A scratch whose value buffer grew past this is not pooled: the pool keeps no big values alive. */
    private static final long POOLED_VALUE_BYTES = 64 << 10;

    /** Values larger than this are read into their own heap array, so no thread keeps a huge buffer. */
    static final long LARGE = 1 << 20;

    private final Arena arena = Arena.ofAuto();
    private final Buffer key = new Buffer();
    private final Buffer value = new Buffer();
    private final Buffer batchKeys = new Buffer();
    /** A batched get's hashes, then the entry positions it touched ahead (see {@code BytesMap.touch}). */
    final long[] hashes = new long[BytesMap.BATCH];
    final long[] entries = new long[BytesMap.BATCH];
    /** The sum of what touching ahead read: stored, so that the JIT cannot drop those loads. */
    long touched;
    private boolean busy;

    /** This thread's scratch, or another one if it is in use; give it back with {@link #release}. */
    static Scratch acquire() {
        if (SHARED.borrowing()) {
            return shared();
        }
        Scratch s = LOCAL.get();
        if (s.busy) {
            return shared();
        }
        s.busy = true;
        return s;
    }

    private static Scratch shared() {
        Scratch s = SHARED.take();
        return s != null ? s : new Scratch();
    }

    void release() {
        if (busy) {
            busy = false;   // a platform thread's own
        } else if (value.whole.byteSize() <= POOLED_VALUE_BYTES) {
            SHARED.give(this);   // a virtual thread's, or a nested call's: either serves the next virtual thread
        }
    }

    /** A buffer of exactly {@code size} bytes for a key. */
    MemorySegment key(long size) {
        return key.exact(size);
    }

    /**
     * A buffer of at least {@code size} bytes for the keys of a batch, each in a slice of its own.
     * A batch that outgrows it gets a larger one; the slices already made keep the old one alive.
     */
    MemorySegment batchKeys(long size) {
        return batchKeys.atLeast(size);
    }

    /**
     * A buffer of at least {@code size} bytes to read a value into: this thread's native buffer,
     * or for a {@link #LARGE} value a heap array of exactly {@code size} bytes.
     */
    MemorySegment value(long size) {
        return size > LARGE ? MemorySegment.ofArray(new byte[Math.toIntExact(size)]) : value.atLeast(size);
    }

    /**
     * Exactly {@code size} bytes for a value: the start of this thread's native buffer (so of
     * what {@link #value(long)} returned for a size at least this one), or for a {@link #LARGE}
     * value a heap array.
     */
    MemorySegment valueBytes(long size) {
        return size > LARGE ? MemorySegment.ofArray(new byte[Math.toIntExact(size)]) : value.exact(size);
    }

    /** One growable native buffer with its exact-size views of up to {@link #INITIAL} bytes. */
    private final class Buffer {
        private MemorySegment whole = arena.allocate(INITIAL, Long.BYTES);
        private final MemorySegment[] views = new MemorySegment[INITIAL + 1];

        MemorySegment atLeast(long size) {
            if (size > whole.byteSize()) {
                whole = arena.allocate(Math.max(size, whole.byteSize() * 2), Long.BYTES);
                Arrays.fill(views, null);
            }
            return whole;
        }

        MemorySegment exact(long size) {
            MemorySegment buffer = atLeast(size);
            if (size > INITIAL) {
                return buffer.asSlice(0, size);
            }
            MemorySegment view = views[(int) size];
            if (view == null) {
                view = buffer.asSlice(0, size);
                views[(int) size] = view;
            }
            return view;
        }
    }
}
