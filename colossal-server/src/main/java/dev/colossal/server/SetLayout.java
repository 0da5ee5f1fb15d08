package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Layout of a set's payload: the bytes after the {@link StoredValue} header of a value whose type
 * field is {@link StoredValue#SET}. The members are kept sorted in {@link SetOrder} behind a table
 * of where each one ends, so that SISMEMBER binary-searches the stored bytes where they lie,
 * decoding nothing, and SMEMBERS of a set Redis would hold as an intset answers in the intset's
 * ascending order.
 *
 * <pre>
 *  0          1             5                                   5 + 4n
 *  +----------+-------------+-----------------------------------+------------------------------+
 *  | encoding | count n     | n member ends (int, LE, each      | the n members' bytes, one    |
 *  | (1 byte) | (int, LE)   | relative to the members' start)   | after another, in SetOrder   |
 *  +----------+-------------+-----------------------------------+------------------------------+
 *  member i = members[end(i-1), end(i)), with end(-1) = 0; the last end is the members' length.
 *  encoding 0 = INTSET: Redis would hold this set as an intset (every member the canonical
 *               decimal of a 64-bit integer, at most {@link #MAX_INTSET_ENTRIES} of them);
 *           1 = HASHTABLE: it outgrew that once, and Redis never converts back;
 *           2 = {@link HashBuckets#BUCKETED}: not this layout but a bucketed set's header, which a set
 *               of more than set-max-intset-entries members becomes (the encoding byte tells them apart).
 * </pre>
 *
 * <p>A write reads, changes and rewrites the whole payload, so it costs O(the set's size): the
 * layout holds sets of up to set-max-intset-entries members ({@link StoredSet} the larger ones);
 * reads of one member cost O(log n).
 */
final class SetLayout {

    static final int ENCODING_OFFSET = 0;
    static final int COUNT_OFFSET = ENCODING_OFFSET + Byte.BYTES;
    static final int ENDS_OFFSET = COUNT_OFFSET + Integer.BYTES;
    static final int END_SIZE = Integer.BYTES;
    static final byte INTSET = 0;
    static final byte HASHTABLE = 1;
    /** Redis 7.0's {@code set-max-intset-entries} default; CONFIG SET moves the server's. */
    static final int MAX_INTSET_ENTRIES = 512;

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private SetLayout() {}

    /** @return where the members of a set of {@code count} start, relative to the payload */
    static long membersOffset(long count) {
        return ENDS_OFFSET + count * END_SIZE;
    }

    /** @return where member {@code i}'s end is, relative to the payload */
    static int endOffset(int i) {
        return ENDS_OFFSET + i * END_SIZE;
    }

    static int getInt(byte[] b, int at) {
        return (int) INT_LE.get(b, at);
    }

    static void putInt(byte[] b, int at, int v) {
        INT_LE.set(b, at, v);
    }

    static IllegalStateException damaged(String what, int at) {
        return new IllegalStateException("a stored set is damaged (" + what + ", at payload offset=" + at
                + "); DEL the key, or run 'colossal verify' on the map file");
    }
}
