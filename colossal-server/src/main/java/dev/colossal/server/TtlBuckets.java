package dev.colossal.server;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which parts of a database's scan order may hold keys with a TTL: one bit per range of {@link
 * dev.colossal.map.BytesMap#scanPosition} cursors, in memory (128 KiB at most), so that the expiry
 * sweep and the {@code volatile-} eviction policies read those parts only, where a database of
 * millions of keys and a few with a TTL had to be read whole. Redis keeps such keys in a table of
 * their own; here the TTLs stay in the values and this is a superset of where they are:
 *
 * <ul>
 *   <li>a write of a TTL marks its key's range after the write is in the map, so a sweep that
 *       clears the bit before reading the range either sees the key or sees the bit set again;
 *   <li>a sweep clears the bits of the ranges it reads, and each key with a TTL it sees sets its
 *       bit again;
 *   <li>nothing else clears a bit: keys whose TTL went (DEL, PERSIST, a SET without one) leave
 *       theirs set until the next sweep reads the range.
 * </ul>
 *
 * It learns the keys the map held before it existed from the first whole sweep ({@link
 * #complete}); until then the sweeps and samples read the whole map, as they did without it.
 */
final class TtlBuckets {

    /** At most 2^20 ranges: 128 KiB of bits, a few keys a range up to a few hundred million keys. */
    private static final int MAX_BUCKET_BITS = 20;

    private final AtomicLongArray bits;
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
    }

    /** Marks the range of a key with a TTL at {@code position}: after the key's write. */
    void mark(long position) {
        int bucket = (int) (position >>> shift);
        long bit = 1L << bucket;
        int word = bucket >>> 6;
        if ((bits.get(word) & bit) == 0) {
            bits.getAndUpdate(word, w -> w | bit);
        }
    }

    /**
     * Clears the run of marked ranges from {@code bucket} on: before a sweep reads them.
     *
     * @return the first range after the run, unmarked or past the last
     */
    long clearRun(long bucket) {
        long b = bucket;
        do {
            long bit = 1L << b;
            bits.getAndUpdate((int) (b >>> 6), w -> w & ~bit);
            b++;
        } while (b < buckets() && (bits.get((int) (b >>> 6)) & 1L << b) != 0);
        return b;
    }

    /** @return how many ranges there are */
    long buckets() {
        return (long) bits.length() * Long.SIZE;
    }

    /** @return the first marked range at or after {@code bucket}, -1 if none is */
    long nextMarked(long bucket) {
        for (int word = (int) (bucket >>> 6); word < bits.length(); word++) {
            long w = bits.get(word);
            if (word == bucket >>> 6) {
                w &= -1L << bucket; // the bits from bucket on
            }
            if (w != 0) {
                return (long) word << 6 | Long.numberOfTrailingZeros(w);
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
