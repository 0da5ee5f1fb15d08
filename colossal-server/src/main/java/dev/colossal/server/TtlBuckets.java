package dev.colossal.server;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which parts of a database's scan order may hold keys with a TTL: one bit per range of {@link
 * dev.colossal.map.BytesMap#scanPosition} cursors, in memory (128 KiB at most), so that the expiry
 * sweep and the {@code volatile-} eviction policies' samples read those parts only, where a database of
 * millions of keys and a few with a TTL had to be read whole. Redis keeps such keys in a table of
 * their own; here the TTLs stay in the values and this is a superset of where they are:
 *
 * <ul>
 *   <li>a write of a TTL marks its key's range after the write is in the map, so a sweep that
 *       clears the bit before reading the range either sees the key or sees the bit set again;
 *   <li>a sweep or a sample clears the bits of the ranges it reads, and sets them again where it
 *       sees a key with a TTL;
 *   <li>nothing else clears a bit: keys whose TTL went (DEL, PERSIST, a SET without one) leave
 *       theirs set until a sweep or a sample reads the range.
 * </ul>
 *
 * It learns the keys the map held before it existed from the first whole sweep ({@link
 * #complete}); until then sweeps read the whole map and samples read from random points, as
 * they did without it.
 */
final class TtlBuckets {

    /** At most 2^20 ranges: 128 KiB of bits, a few keys a range up to a few hundred million keys. */
    private static final int MAX_BUCKET_BITS = 20;

    private final AtomicLongArray bits;
    /**
     * One bit per word of {@link #bits}, set while the word may be non-zero: a look for the next
     * mark reads 256 words of this, not 16,384 of those (a sample runs in a write under the
     * {@code volatile-} policies, and finding no mark must cost it little).
     */
    private final AtomicLongArray words;
    /** A cursor's range is {@code cursor >>> shift}. */
    private final int shift;
    private final long limit;
    private volatile boolean complete;

    /** @param cursorLimit the map's {@code scanCursorLimit()}, a power of two */
    TtlBuckets(long cursorLimit) {
        if (Long.bitCount(cursorLimit) != 1) {
            throw new IllegalArgumentException("a scan's cursor limit is a power of two, not " + cursorLimit);
        }
        int cursorBits = Long.numberOfTrailingZeros(cursorLimit);
        this.shift = Math.max(0, cursorBits - MAX_BUCKET_BITS);
        this.limit = cursorLimit;
        this.bits = new AtomicLongArray((int) Math.max(1, (cursorLimit >>> shift) / Long.SIZE));
        this.words = new AtomicLongArray(Math.max(1, bits.length() / Long.SIZE));
    }

    /** Marks the range of a key with a TTL at {@code position}: after the key's write. */
    void mark(long position) {
        long bucket = position >>> shift;
        int word = (int) (bucket >>> 6);
        long bit = 1L << bucket;
        if ((bits.get(word) & bit) == 0) {
            bits.getAndUpdate(word, w -> w | bit);
        }
        // after the bit: a clear that saw the word empty looks at it again after clearing this
        long wordBit = 1L << word;
        if ((words.get(word >>> 6) & wordBit) == 0) {
            words.getAndUpdate(word >>> 6, w -> w | wordBit);
        }
    }

    private void clear(long bucket) {
        int word = (int) (bucket >>> 6);
        long bit = 1L << bucket;
        if ((bits.getAndUpdate(word, w -> w & ~bit) & ~bit) == 0) {
            long wordBit = 1L << word;
            words.getAndUpdate(word >>> 6, w -> w & ~wordBit);
            if (bits.get(word) != 0) { // marked meanwhile: its mark may have come before this clear
                words.getAndUpdate(word >>> 6, w -> w | wordBit);
            }
        }
    }

    /**
     * Clears the run of marked ranges from {@code bucket} on, but not from {@code limit}: before a
     * sweep or a sample reads them.
     *
     * @return the first range after the run: unmarked, {@code limit}, or past the last
     */
    long clearRun(long bucket, long limit) {
        long b = bucket;
        do {
            clear(b++);
        } while (b < Math.min(limit, buckets()) && (bits.get((int) (b >>> 6)) & 1L << b) != 0);
        return b;
    }

    /** @return how many ranges there are */
    long buckets() {
        return (long) bits.length() * Long.SIZE;
    }

    /** @return the first marked range at or after {@code bucket}, -1 if none is */
    long nextMarked(long bucket) {
        int word = (int) (bucket >>> 6);
        if (word >= bits.length()) {
            return -1;
        }
        long w = bits.get(word) & -1L << bucket;
        while (w == 0) {
            word = nextWord(word + 1);
            if (word < 0) {
                return -1;
            }
            w = bits.get(word);
        }
        return (long) word << 6 | Long.numberOfTrailingZeros(w);
    }

    /** @return the first word at or after {@code word} that may be non-zero, -1 if none */
    private int nextWord(int word) {
        for (int i = word >>> 6; i < words.length() && word < bits.length(); i++) {
            long w = words.get(i);
            if (i == word >>> 6) {
                w &= -1L << word;
            }
            if (w != 0) {
                return i << 6 | Long.numberOfTrailingZeros(w);
            }
        }
        return -1;
    }

    /** @return the range holding cursor {@code position} */
    long bucketOf(long position) {
        return position >>> shift;
    }

    /** @return the first cursor of range {@code bucket} */
    long start(long bucket) {
        return bucket << shift;
    }

    /** @return one past the last cursor of range {@code bucket} */
    long end(long bucket) {
        return Math.min(limit, (bucket + 1) << shift);
    }

    /** @return whether every key with a TTL has its range marked: a whole sweep has seen the keys from before */
    boolean complete() {
        return complete;
    }

    /** A whole sweep went through: the keys written before this existed are marked too. */
    void completed() {
        complete = true;
    }
}
