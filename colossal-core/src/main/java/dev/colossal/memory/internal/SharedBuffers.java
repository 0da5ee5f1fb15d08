package dev.colossal.memory.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small bounded pool of scratch buffers that virtual threads borrow for one operation and give
 * back at its end, where a platform thread keeps its own in a {@link ThreadLocal}.
 *
 * <p>A server with a virtual thread per request starts every request on a thread that has never
 * run: a buffer kept per thread would be made anew for each request (the map's native scratch with
 * its Cleaner, the codecs' 8 KiB windows, the checksum's 4 KiB copy: ~17 KB of garbage per typed get)
 * and dropped with the thread. Only as many virtual threads as there are carriers run at once, and
 * an operation parks only while it waits for a lock or runs a function of the caller's that blocks,
 * so a few buffers serve them all.
 *
 * <p>Lock-free and allocation-free: a fixed array of slots, each taken and filled by a
 * compare-and-set, so a buffer given back happens-before the next {@link #take} that gets it. An
 * empty pool returns null (the caller makes a buffer), and a full pool drops what it is given: the
 * bound holds however many threads park holding buffers. The slots are scanned from the start, so
 * the buffers in use are the few most recently given back, still in cache.
 *
 * @param <T> the buffer
 */
public final class SharedBuffers<T> {

    /** Slots per pool: a few buffers per carrier, as the default scheduler has one carrier per core. */
    static final int SLOTS = Math.max(16, 4 * Runtime.getRuntime().availableProcessors());

    /**
     * Calls (into any pool) a virtual thread makes with borrowed buffers before it keeps its own, as a platform
     * thread does: a request's few calls borrow; a thread that goes on calling (a long-lived one,
     * a loop over many keys) stops paying a take and a give, compare-and-sets on words every
     * carrier writes: 1000 virtual threads merging into 8 keys ran at half the speed borrowing.
     */
    static final int BORROWED_CALLS = 32;

    private final AtomicReferenceArray<T> slots = new AtomicReferenceArray<>(SLOTS);
    /**
     * Per virtual thread, its calls so far into any pool: one count, so that a fresh thread makes
     * one small entry in its thread-local map, not one per kind of buffer. Not set for platform
     * threads, which never borrow.
     */
    private static final ThreadLocal<int[]> CALLS = new ThreadLocal<>();

    /** A pool of {@link #SLOTS} slots, all empty. */
    public SharedBuffers() {}

    /**
     * Whether the calling thread borrows for this call ({@link #take}, then {@link #give}) rather
     * than use buffers of its own: a virtual thread, for its first {@value #BORROWED_CALLS} calls
     * into any pool (a typed get makes three: the map's scratch, the checksum, the decode).
     * Counts the call.
     *
     * @return true for a virtual thread's first calls
     */
    public boolean borrowing() {
        if (!Thread.currentThread().isVirtual()) {
            return false;
        }
        int[] n = CALLS.get();
        if (n == null) {
            CALLS.set(new int[] {1});
            return true;
        }
        return n[0] < BORROWED_CALLS && ++n[0] > 0;
    }

    /** @return a buffer given back earlier, now the caller's alone; null if there is none */
    public T take() {
        for (int i = 0; i < SLOTS; i++) {
            T buffer = slots.getPlain(i);
            if (buffer != null && slots.compareAndSet(i, buffer, null)) {
                return buffer;
            }
        }
        return null;
    }

    /**
     * Gives {@code buffer} to the next {@link #take}, or drops it if every slot is full. The caller
     * must not use it afterwards.
     *
     * @param buffer a buffer no one else holds
     */
    public void give(T buffer) {
        for (int i = 0; i < SLOTS; i++) {
            if (slots.getPlain(i) == null && slots.compareAndSet(i, null, buffer)) {
                return;
            }
        }
    }
}
