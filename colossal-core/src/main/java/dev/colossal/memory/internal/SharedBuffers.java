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

    private final AtomicReferenceArray<T> slots = new AtomicReferenceArray<>(SLOTS);

    /** A pool of {@link #SLOTS} slots, all empty. */
    public SharedBuffers() {}

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
