package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A chunked string ({@link BigStringLayout}) under one key: reads and writes of a byte range that
 * touch only the chunks holding it, the conversion of a plain string that a write grew past the
 * threshold, and the expansion of all chunks into one plain stored form for every reader that wants
 * the whole string ({@link KeyValueStore#get}, GET's {@link KeyValueStore#copyStored}).
 * Writers hold the key's lock, as for any string.
 *
 * <p>Crash safety: chunks are written before the header. A write that grows the string first
 * clears what a dead write may have left past the old length (the old last chunk's tail, chunks
 * past it), then writes its chunks, then the header with the new length: a kill before the header
 * leaves the old string. A write inside the length rewrites each chunk it touches with one put, so
 * a write within one chunk (SETBIT, most BITFIELDs and SETRANGEs) is whole or absent after a kill;
 * one across a chunk boundary may be cut at the boundary.
 */
final class BigString {

    private final KeyValueStore store;
    private final ListElements elements;
    private final byte[] key;
    private final long id;
    private final int chunk;
    private final long expireAtMillis;
    private long length;

    private BigString(KeyValueStore store, ListElements elements, byte[] key, long id, int chunk, long length,
                      long expireAtMillis) {
        this.store = store;
        this.elements = elements;
        this.key = key;
        this.id = id;
        this.chunk = chunk;
        this.length = length;
        this.expireAtMillis = expireAtMillis;
    }

    /**
     * @param raw the live entry of {@code key} as {@link KeyValueStore#raw} returned it, {@link KeyValueStore.Entry#chunked()}
     * @return the chunked string it heads
     */
    static BigString of(KeyValueStore store, byte[] key, KeyValueStore.Entry raw) {
        return new BigString(store, elementsOf(store.elements(false)), key, BigStringLayout.get(raw, BigStringLayout.ID_OFFSET),
                chunkOf(BigStringLayout.get(raw, BigStringLayout.CHUNK_OFFSET)),
                BigStringLayout.get(raw, BigStringLayout.LENGTH_OFFSET), raw.expireAtMillis());
    }

    /** @return the string's length in bytes */
    long length() {
        return length;
    }

    /** @return bytes {@code [from, from + n)}, which must be within the length */
    byte[] read(long from, int n) {
        byte[] out = new byte[n];
        copy(elements, id, chunk, length, from, n, MemorySegment.ofArray(out), 0);
        return out;
    }

    /** @return the byte at {@code index}, 0 past the length */
    int byteAt(long index) {
        return index < length ? read(index, 1)[0] : 0;
    }

    /**
     * Sets or clears bit {@code offset} (bit 0 the most significant of byte 0), growing the string
     * with zeros to reach it: one chunk read and, if the bit changes, written.
     *
     * @return the bit's old value
     */
    int setBit(long offset, boolean on) {
        long index = offset >>> 3;
        int mask = 1 << (7 - (int) (offset & 7));
        if (index >= length) {
            write(index, new byte[] {(byte) (on ? mask : 0)}, 0, 1);
            return 0;
        }
        long k = index / chunk;
        int live = (int) Math.min(chunk, length - k * chunk);
        byte[] c = elements.get(id, k);
        int at = (int) (index - k * chunk);
        int was = c != null && at < Math.min(c.length, live) && (c[at] & mask) != 0 ? 1 : 0;
        if (was != (on ? 1 : 0)) {
            byte[] now = new byte[live]; // only the live bytes: what a dead write left past the length goes
            if (c != null) {
                System.arraycopy(c, 0, now, 0, Math.min(c.length, live));
            }
            now[at] = (byte) (now[at] ^ mask);
            elements.put(id, k, now);
        }
        return was;
    }

    /**
     * Writes {@code src[from, from + n)} at byte {@code offset}, growing the string with zeros to
     * reach it; the caller has checked the new length against the limit.
     */
    void write(long offset, byte[] src, int from, int n) {
        if (n == 0) {
            return;
        }
        long end = offset + n;
        long grown = Math.max(length, end);
        StoredValue.checkLength(grown); // every reader that wants the whole string gets it in one array
        long firstWritten = offset / chunk;
        long lastWritten = (end - 1) / chunk;
        if (grown > length) {
            // What a dead write left past the old end must read as zeros once the length covers it.
            for (long k = length / chunk, last = (grown - 1) / chunk; k <= last; k++) {
                if (k < firstWritten || k > lastWritten) {
                    clearPastEnd(k);
                }
            }
        }
        for (long k = firstWritten; k <= lastWritten; k++) {
            long base = k * chunk;
            int live = Math.clamp(length - base, 0, chunk);
            int size = (int) Math.max(live, Math.min(chunk, end - base));
            byte[] c = new byte[size];
            byte[] old = live == 0 ? null : elements.get(id, k);
            if (old != null) {
                System.arraycopy(old, 0, c, 0, Math.min(old.length, live));
            }
            long at = Math.max(offset, base);
            int m = (int) (Math.min(end, base + chunk) - at);
            System.arraycopy(src, from + (int) (at - offset), c, (int) (at - base), m);
            elements.put(id, k, c);
        }
        if (grown != length) {
            writeHeader(store, key, id, grown, chunk, expireAtMillis);
            length = grown;
        }
    }

    /** Makes chunk {@code k}, which holds no byte below the old length or only its start, hold nothing past it. */
    private void clearPastEnd(long k) {
        long base = k * chunk;
        if (base >= length) {
            elements.remove(id, k);
            return;
        }
        byte[] c = elements.get(id, k);
        int live = (int) (length - base);
        if (c != null && c.length > live) {
            elements.put(id, k, Arrays.copyOf(c, live));
        }
    }

    /**
     * RENAME: moves the header to {@code toKey}, replacing what it held; the chunks stay where they
     * are. Whole or not at all after a kill ({@link HeaderRename}).
     */
    void renameTo(byte[] toKey) {
        HeaderRename.run(store, elements, id, key, toKey, () -> writeHeader(store, toKey, id, length, chunk, expireAtMillis));
    }

    /**
     * Stores the string {@code v} under {@code key}: chunked if longer than the threshold, else
     * plain, replacing what was there. What the writes that may grow a string past the threshold
     * store.
     */
    static void set(KeyValueStore store, byte[] key, byte[] v, long expireAtMillis) {
        if (v.length <= BigStringLayout.threshold()) {
            store.set(key, v, expireAtMillis);
            return;
        }
        store.checkFits(key.length, BigStringLayout.HEADER_LENGTH, expireAtMillis);
        ListElements elements = store.elements(true);
        long id = elements.newId(key);
        int chunk = BigStringLayout.chunk();
        for (long k = 0, n = BigStringLayout.chunks(v.length, chunk); k < n; k++) {
            int from = (int) (k * chunk);
            int to = Math.min(v.length, from + chunk);
            // A chunk of zeros need not be stored: a missing one reads as zeros (a sparse bitmap costs little).
            if (Arrays.mismatch(v, from, to, new byte[to - from], 0, to - from) >= 0) {
                elements.put(id, k, Arrays.copyOfRange(v, from, to));
            }
        }
        writeHeader(store, key, id, v.length, chunk, expireAtMillis);
    }

    private static void writeHeader(KeyValueStore store, byte[] key, long id, long length, int chunk, long expireAtMillis) {
        byte[] h = BigStringLayout.header(id, length, chunk);
        store.set(key, h, 0, h.length, expireAtMillis, StoredValue.CHUNKED);
    }

    /**
     * Turns the stored form of a chunked string at {@code dst[at, at + storedLength)} into the plain
     * stored form of the string its chunks hold, in place, if it fits in {@code dst}.
     *
     * @return the plain stored form's length (nothing was changed if it exceeds {@code dst.byteSize() - at})
     */
    static long expand(ListElements elements, MemorySegment dst, long at, long storedLength) {
        byte flags = StoredValue.flags(dst, at);
        int payload = StoredValue.payloadOffset(flags);
        if (storedLength != payload + BigStringLayout.HEADER_LENGTH) {
            throw new IllegalStateException("a chunked string's header has length=" + (storedLength - payload) + ", not "
                    + BigStringLayout.HEADER_LENGTH);
        }
        long h = at + payload;
        long id = dst.get(LONG_BE, h + BigStringLayout.ID_OFFSET);
        long length = dst.get(LONG_BE, h + BigStringLayout.LENGTH_OFFSET);
        int chunk = chunkOf(dst.get(LONG_BE, h + BigStringLayout.CHUNK_OFFSET));
        long total = payload + length;
        if (total > dst.byteSize() - at) {
            return total;
        }
        copy(elementsOf(elements), id, chunk, length, 0, length, dst, h);
        dst.set(ValueLayout.JAVA_BYTE, at + StoredValue.FLAGS_OFFSET, (byte) (flags & ~StoredValue.CHUNKED));
        return total;
    }

    /** @return the plain stored form of the chunked string whose stored form is {@code stored} */
    static byte[] expand(ListElements elements, byte[] stored) {
        MemorySegment head = MemorySegment.ofArray(stored);
        int payload = StoredValue.payloadOffset(stored);
        long length = stored.length == payload + BigStringLayout.HEADER_LENGTH
                ? head.get(LONG_BE, payload + BigStringLayout.LENGTH_OFFSET) : 0;
        byte[] out = new byte[Math.toIntExact(payload + Math.max(length, BigStringLayout.HEADER_LENGTH))];
        System.arraycopy(stored, 0, out, 0, stored.length);
        long n = expand(elements, MemorySegment.ofArray(out), 0, stored.length);
        return n == out.length ? out : Arrays.copyOf(out, (int) n);
    }

    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /** Copies bytes {@code [from, from + n)} of the string to {@code dst} at {@code at}; zeros where a chunk holds none. */
    private static void copy(ListElements elements, long id, int chunk, long length, long from, long n,
                             MemorySegment dst, long at) {
        long end = from + n;
        for (long k = from / chunk; k * chunk < end; k++) {
            long base = k * chunk;
            long lo = Math.max(from, base);
            long hi = Math.min(end, base + chunk);
            byte[] c = elements.get(id, k);
            int have = c == null ? 0 : (int) Math.clamp(Math.min(c.length, length - base) - (lo - base), 0, hi - lo);
            if (have > 0) {
                MemorySegment.copy(MemorySegment.ofArray(c), lo - base, dst, at + (lo - from), have);
            }
            if (have < hi - lo) {
                dst.asSlice(at + (lo - from) + have, hi - lo - have).fill((byte) 0);
            }
        }
    }

    private static ListElements elementsOf(ListElements e) {
        if (e == null) {
            throw new IllegalStateException("a chunked string's header names the element map, which this database does not"
                    + " have: was its .elements.map file removed? Restore it from a backup");
        }
        return e;
    }

    private static int chunkOf(long chunk) {
        if (chunk <= 0 || chunk > StoredValue.MAP_MAX_VALUE || Long.bitCount(chunk) != 1) {
            throw new IllegalStateException("a chunked string's header has chunk=" + chunk + ", not a power of two");
        }
        return (int) chunk;
    }
}
