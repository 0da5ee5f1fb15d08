package dev.colossal.server;

/**
 * Layout of a chunked string: one longer than {@link #threshold} that a write (APPEND, SETRANGE,
 * SETBIT, BITFIELD) made or grew keeps a small header under the user's key and its bytes in
 * fixed-size chunks, one entry each in the database's element map ({@link ListElements}), so that a
 * write or a read of a few bytes touches one chunk, whatever the string's length.
 *
 * <pre>
 *  Stored value under the key: flags with {@link StoredValue#CHUNKED} set (type field STRING),
 *  the optional expiry, then this header; big-endian longs
 *  0          8          16         24
 *  +----------+----------+----------+
 *  | id       | length   | chunk    |
 *  +----------+----------+----------+
 *  id     = the collection's id: its chunks' keys are id | index, its root's id ({@link ListLayout})
 *  length = the string's length in bytes
 *  chunk  = the bytes per chunk C this string was written with (a power of two)
 *
 *  Chunk i (element map): key = id | i, value = bytes [i*C, i*C + m) of the string, m <= C
 *  A chunk shorter than C, or a missing one, reads as zeros up to the length.
 * </pre>
 *
 * <p>The header is the commit point: bytes of the last chunk past the length, and chunks at
 * {@code i >= ceil(length / C)}, are not part of the string (what an APPEND that died before its
 * header write left); a write that grows the string clears them first, and {@link ListCollector}
 * frees the chunks past the end.
 */
final class BigStringLayout {

    static final int ID_OFFSET = 0;
    static final int LENGTH_OFFSET = ID_OFFSET + Long.BYTES;
    static final int CHUNK_OFFSET = LENGTH_OFFSET + Long.BYTES;
    static final int HEADER_LENGTH = CHUNK_OFFSET + Long.BYTES;

    /**
     * The chunk size of new chunked strings unless a test lowers it. A SETBIT reads and writes one
     * chunk: 4 KiB made SETBIT on a 1.25 MB bitmap about twice as fast as 16 KiB, and a 1 GiB string
     * is still only 262,144 entries.
     */
    static final int DEFAULT_CHUNK = 4 * 1024;
    /** Strings longer than this are chunked by a write that reaches past it, unless a test lowers it. */
    static final long DEFAULT_THRESHOLD = 64 * 1024;

    // Mutable so that tests can exercise chunk boundaries with small strings; each string keeps
    // the chunk size it was written with in its header, so changing it never misreads one.
    private static volatile int chunk = Integer.getInteger("colossal.bigstring.chunk", DEFAULT_CHUNK);
    private static volatile long threshold = Long.getLong("colossal.bigstring.threshold", DEFAULT_THRESHOLD);

    private BigStringLayout() {}

    /** @return the chunk size of strings chunked from now on */
    static int chunk() {
        return chunk;
    }

    /** @return the length past which a write chunks a string */
    static long threshold() {
        return threshold;
    }

    /**
     * Sets the chunk size and threshold of strings chunked from now on (tests).
     *
     * @throws IllegalArgumentException if {@code chunkBytes} is not a power of two or the threshold is below it
     */
    static void configure(int chunkBytes, long thresholdBytes) {
        if (Integer.bitCount(chunkBytes) != 1 || thresholdBytes < chunkBytes) {
            throw new IllegalArgumentException("chunkBytes=" + chunkBytes + " must be a power of two and thresholdBytes="
                    + thresholdBytes + " at least it");
        }
        chunk = chunkBytes;
        threshold = thresholdBytes;
    }

    /** @return a header's payload */
    static byte[] header(long id, long length, long chunkBytes) {
        byte[] h = new byte[HEADER_LENGTH];
        ListLayout.putLong(h, ID_OFFSET, id);
        ListLayout.putLong(h, LENGTH_OFFSET, length);
        ListLayout.putLong(h, CHUNK_OFFSET, chunkBytes);
        return h;
    }

    /** @return the long at {@code at} of the header {@code e} holds */
    static long get(KeyValueStore.Entry e, int at) {
        if (e.length() != HEADER_LENGTH) {
            throw new IllegalStateException("a chunked string's header has length=" + e.length() + ", not " + HEADER_LENGTH);
        }
        return ListLayout.getLong(e.array(), e.offset() + at);
    }

    /** @return the chunks a string of {@code length} bytes in chunks of {@code chunkBytes} spans */
    static long chunks(long length, long chunkBytes) {
        return (length + chunkBytes - 1) / chunkBytes;
    }

    /** @return the {@link ListCollector}'s view of header {@code e}: the chunk range {@code {0, n}} if it holds collection {@code id}, else null */
    static long[] held(KeyValueStore.Entry e, long id) {
        if (!e.chunked() || e.length() != HEADER_LENGTH || get(e, ID_OFFSET) != id) {
            return null;
        }
        return new long[] {0, chunks(get(e, LENGTH_OFFSET), get(e, CHUNK_OFFSET))};
    }
}
