package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Layout of a sorted set's payload: the bytes after the {@link StoredValue} header of a value of
 * type {@link StoredValue#ZSET}. Entries are kept ordered by (score, member), scores compared as
 * numbers (so -0 equals 0) and members as unsigned bytes, shorter first on a tie: Redis's order,
 * so that a range by rank, score or lex walks from the start and stops at its end, with no sort.
 *
 * <pre>
 *  0          1
 *  +----------+----------+-----------------------------------------------------------------+
 *  | encoding | count    | count entries, ascending by (score, member):                    |
 *  | (1 byte) | (varint) | score (8 bytes, IEEE 754, LE) | member length (varint) | member  |
 *  +----------+----------+-----------------------------------------------------------------+
 *  encoding 0 = LISTPACK: Redis would hold this set as a listpack;
 *           1 = SKIPLIST: it outgrew Redis's listpack limits ({@link #MAX_LISTPACK_ENTRIES}
 *               members, {@link #MAX_LISTPACK_VALUE} bytes a member) and Redis does not convert back.
 *  varint   = {@link HashLayout}'s: unsigned, 7 bits a byte, least significant first.
 *  No score is NaN; in a LISTPACK set no score is -0 (Redis's listpack keeps it as 0).
 * </pre>
 *
 * <p>A write reads, changes and rewrites the whole payload (as Redis rewrites a listpack), so it
 * costs O(the set's size): the layout suits sets of up to some thousands of members.
 */
final class ZSetLayout {

    static final int ENCODING_OFFSET = 0;
    static final int COUNT_OFFSET = ENCODING_OFFSET + Byte.BYTES;
    static final int SCORE_LENGTH = Double.BYTES;
    static final byte LISTPACK = 0;
    static final byte SKIPLIST = 1;
    /** Redis 7.0's {@code zset-max-listpack-entries} default. */
    static final int MAX_LISTPACK_ENTRIES = 128;
    /** Redis 7.0's {@code zset-max-listpack-value} default. */
    static final int MAX_LISTPACK_VALUE = 64;

    private static final VarHandle DOUBLE_LE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

    private ZSetLayout() {}

    static double getScore(byte[] in, int at) {
        return (double) DOUBLE_LE.get(in, at);
    }

    static void putScore(byte[] out, int at, double score) {
        DOUBLE_LE.set(out, at, score);
    }

    /** @return whether a set of {@code count} members, the longest {@code longest} bytes, is a listpack in Redis */
    static boolean fitsListpack(long count, long longest) {
        return count <= MAX_LISTPACK_ENTRIES && longest <= MAX_LISTPACK_VALUE;
    }

    /**
     * Redis's order of entries: by score as numbers, then by member bytes.
     *
     * @return negative, zero or positive as (s1, m1) sorts before, with or after (s2, m2)
     */
    static int compare(double s1, byte[] m1, int m1From, int m1To, double s2, byte[] m2) {
        if (s1 < s2) {
            return -1;
        }
        if (s1 > s2) {
            return 1;
        }
        return Arrays.compareUnsigned(m1, m1From, m1To, m2, 0, m2.length);
    }

    static IllegalStateException damaged(String what, int at) {
        return new IllegalStateException("a stored sorted set is damaged (" + what + ", at payload offset=" + at
                + "); DEL the key, or run 'colossal verify' on the map file");
    }
}
