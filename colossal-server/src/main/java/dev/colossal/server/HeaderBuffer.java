package dev.colossal.server;

import java.lang.foreign.MemorySegment;

/**
 * Each thread's buffer for a list's or a stream's header on its way to the map: the header is
 * built at {@link #AT}, behind room for the stored form's flags and deadline ({@link StoredValue}),
 * and the map copies it from there. A push or a pop used to make an array of the header (a few
 * hundred bytes on a big list, zeroed, then filled), which the store then copied into its own
 * staging buffer before the map copied it again.
 *
 * <p>A stream's header also comes out of the map through it ({@link #load}): an XADD reads the
 * header (up to ~650 bytes with its tail run) and writes it back on every call, and a read into a
 * new array was an allocation, zeroing and copy per call for bytes the command decodes at once.
 */
final class HeaderBuffer {

    /** Where a header starts in {@link #room}'s array: after room for the longest stored-form header. */
    static final int AT = StoredValue.EXPIRING_HEADER;

    private static final ThreadLocal<HeaderBuffer> MINE = ThreadLocal.withInitial(HeaderBuffer::new);

    /** The most bytes a thread keeps: a bigger header (an LSET's big element in a run) gets an array of its own. */
    private static final int MOST_KEPT = 64 << 10;

    private byte[] kept = new byte[1024];
    private MemorySegment keptSegment = MemorySegment.ofArray(kept);
    /** The segment of the array the last {@link #room} gave. */
    private MemorySegment current = keptSegment;

    private HeaderBuffer() {
    }

    /** @return this thread's buffer: one header at a time, from {@link #room} to {@link #store} */
    static HeaderBuffer mine() {
        return MINE.get();
    }

    /** @return the array to build a header of {@code length} bytes in, at {@link #AT} */
    byte[] room(int length) {
        int n = AT + length;
        if (n > kept.length) {
            byte[] b = new byte[Math.max(n, kept.length * 2)];
            if (b.length > MOST_KEPT) {
                current = MemorySegment.ofArray(b);
                return b;
            }
            kept = b;
            keptSegment = MemorySegment.ofArray(b);
        }
        current = keptSegment;
        return kept;
    }

    /**
     * Stores the header of {@code length} bytes built at {@link #AT} as the value of type
     * {@code type} ({@link StoredValue#LIST}, {@link StoredValue#STREAM}) under {@code key}, with
     * deadline {@code expireAt}.
     */
    void store(KeyValueStore store, byte[] key, int length, long expireAt, byte type) {
        try {
            store.setInPlace(MemorySegment.ofArray(key), current, AT, length, expireAt, type);
        } finally {
            current = keptSegment; // a big header's own array goes with its store
        }
    }

    /**
     * Copies the stored form ({@link StoredValue}) of the live value under {@code key} to the start
     * of {@link #loaded()}'s array, which grows to hold it up to {@link #MOST_KEPT} bytes. The bytes
     * stay there until the thread's next {@link #room} or load: decode them before building a header.
     *
     * @return the stored form's length; -1 if the key is absent or expired; above
     *     {@code loaded().length} if it did not fit (nothing loaded: read it from the store)
     */
    long load(KeyValueStore store, byte[] key) {
        MemorySegment k = MemorySegment.ofArray(key);
        long n = store.copyStored(k, keptSegment, 0);
        if (n > kept.length && n <= MOST_KEPT) {
            kept = new byte[(int) Math.max(n, kept.length * 2L)];
            keptSegment = MemorySegment.ofArray(kept);
            n = store.copyStored(k, keptSegment, 0);
        }
        return n;
    }

    /** @return the array {@link #load} copies into, from its start */
    byte[] loaded() {
        return kept;
    }
}
