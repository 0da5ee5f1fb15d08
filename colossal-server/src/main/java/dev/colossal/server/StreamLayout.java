package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Layout of a stream: a header under the user's key in the database's map, and the entries packed
 * in nodes, one node per entry of the database's element map ({@link ListElements}), keyed like a
 * list's elements (id | position). An XADD rewrites only the last node (or starts one) and then
 * the header, so its cost does not grow with the stream.
 *
 * <pre>
 *  Header: the payload of a stored value of type {@link StoredValue#STREAM}; big-endian longs
 *  0        8        16       24       32       40       48       56       64       72       80
 *  +--------+--------+--------+--------+--------+--------+--------+--------+--------+--------+
 *  | id     | first  | count  | length | lastMs | lastSeq| maxDel | maxDel | added  | firstMs|
 *  |        |        |        |        |        |        | Ms     | Seq    |        |        |
 *  +--------+--------+--------+--------+--------+--------+--------+--------+--------+--------+
 *  80       88       96       104      112      120
 *  +--------+--------+--------+--------+--------+
 *  |firstSeq| head   | tail   | aux    | groups |
 *  |        | skip   | bytes  | count  | state  |
 *  +--------+--------+--------+--------+--------+
 *  id, first, count: as a list's header ({@link ListLayout}'s offsets): the nodes are at positions [first, first + count)
 *  length       = live entries
 *  last         = the last ID the stream gave or was set to (XADD's floor, XSETID's)
 *  maxDel       = the largest ID deleted (XINFO's max-deleted-entry-id)
 *  added        = entries added over the stream's life (XINFO's entries-added)
 *  first        = the first live entry's ID, 0-0 when empty (XINFO's recorded-first-entry-id)
 *  head skip    = leading entries of the first node that an exact trim dropped (the node is not rewritten)
 *  tail bytes   = the last node's committed length: bytes an XADD wrote after it, then died before the
 *                 header, are not part of the stream, and the next XADD overwrites them
 *  aux count    = auxiliary entries (consumer groups' state) at positions [AUX_BASE, AUX_BASE + aux count)
 *  groups state = the consumer groups' directory slot plus one, 0 for none ({@link GroupsLayout})
 *
 *  A header may go on past its 120 bytes with the last node's tail run (headers of 120 bytes, all of
 *  them before the run, have none):
 *  120      128
 *  +--------+---------------------------+
 *  | run    | run: entries, as a node's |   the last node is its committed tail bytes, then the run
 *  | entries| entries, against its base |
 *  +--------+---------------------------+
 *
 *  Node: an element-map entry's value
 *  0        8         16
 *  +--------+---------+-------+-------+----
 *  | baseMs | baseSeq | entry | entry | ...      big-endian; base = the node's first entry's ID
 *  +--------+---------+-------+-------+----
 *  entry:
 *  +-----------+----------+-----------+------------+-----------------+------------------+---
 *  | flags (1) | msDelta  | seqPart   | pairs      | field len,bytes | value len,bytes  | ...   lengths and numbers are
 *  +-----------+----------+-----------+------------+-----------------+------------------+---   unsigned LEB128 varints
 *  flags bit 0 = deleted (XDEL)
 *  msDelta = ms - baseMs; seqPart = seq - baseSeq if msDelta is 0, else seq
 * </pre>
 *
 * <p>The tail run is what makes an XADD cost the same whatever the last node's size: most XADDs
 * add their entry to the run and write the header alone, and one in a while (the run past
 * {@link #MAX_RUN_BYTES}, or a new node begun) writes the last node with the run in it, before the
 * header that empties the run.
 *
 * <p>The header is the commit point: nodes are written before it, so a node a crash left outside
 * {@code [first, first + count)} is garbage {@link ListCollector} frees under the key's lock, as
 * it frees a list's elements. Consumer groups keep their state in auxiliary entries at positions
 * {@code [AUX_BASE, AUX_BASE + aux count)}, below every node's position (nodes start at 0 and only
 * go up): the collector keeps those while the header names them.
 */
final class StreamLayout {

    static final int ID_OFFSET = ListLayout.ID_OFFSET;
    static final int FIRST_OFFSET = ListLayout.FIRST_OFFSET;
    static final int COUNT_OFFSET = ListLayout.COUNT_OFFSET;
    static final int LENGTH_OFFSET = COUNT_OFFSET + Long.BYTES;
    static final int LAST_MS_OFFSET = LENGTH_OFFSET + Long.BYTES;
    static final int LAST_SEQ_OFFSET = LAST_MS_OFFSET + Long.BYTES;
    static final int MAX_DELETED_MS_OFFSET = LAST_SEQ_OFFSET + Long.BYTES;
    static final int MAX_DELETED_SEQ_OFFSET = MAX_DELETED_MS_OFFSET + Long.BYTES;
    static final int ENTRIES_ADDED_OFFSET = MAX_DELETED_SEQ_OFFSET + Long.BYTES;
    static final int FIRST_MS_OFFSET = ENTRIES_ADDED_OFFSET + Long.BYTES;
    static final int FIRST_SEQ_OFFSET = FIRST_MS_OFFSET + Long.BYTES;
    static final int HEAD_SKIP_OFFSET = FIRST_SEQ_OFFSET + Long.BYTES;
    static final int TAIL_BYTES_OFFSET = HEAD_SKIP_OFFSET + Long.BYTES;
    static final int AUX_COUNT_OFFSET = TAIL_BYTES_OFFSET + Long.BYTES;
    static final int GROUPS_STATE_OFFSET = AUX_COUNT_OFFSET + Long.BYTES;
    static final int HEADER_LENGTH = GROUPS_STATE_OFFSET + Long.BYTES;
    static final int RUN_ENTRIES_OFFSET = HEADER_LENGTH;
    static final int RUN_OFFSET = RUN_ENTRIES_OFFSET + Long.BYTES;
    /**
     * The most bytes the tail run holds: a header write carries it on every XADD, a node write
     * takes it in once it is full, so the bound weighs the two.
     */
    static final int MAX_RUN_BYTES = 512;

    /** The position of the first auxiliary entry (consumer groups' state): below every node's. */
    static final long AUX_BASE = Long.MIN_VALUE;

    static final int NODE_BASE_MS_OFFSET = 0;
    static final int NODE_BASE_SEQ_OFFSET = NODE_BASE_MS_OFFSET + Long.BYTES;
    static final int NODE_HEADER_LENGTH = NODE_BASE_SEQ_OFFSET + Long.BYTES;
    /** The entry flag of a deleted entry. */
    static final byte DELETED = 1;

    /** Redis 7.0's {@code stream-node-max-entries} default. */
    static final long DEFAULT_NODE_MAX_ENTRIES = 100;
    /** Redis 7.0's {@code stream-node-max-bytes} default. */
    static final long DEFAULT_NODE_MAX_BYTES = 4096;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private StreamLayout() {}

    static long getLong(byte[] b, int at) {
        return (long) LONG_BE.get(b, at);
    }

    static void putLong(byte[] b, int at, long v) {
        LONG_BE.set(b, at, v);
    }

    /** @return the bytes of {@code v} as an unsigned LEB128 varint */
    static int varLength(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes {@code v} as an unsigned varint at {@code at}. @return the offset after it */
    static int putVar(byte[] b, int at, long v) {
        while ((v & ~0x7FL) != 0) {
            b[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[at++] = (byte) v;
        return at;
    }

    /**
     * Reads an unsigned varint at {@code pos[0]} and moves {@code pos[0]} past it.
     *
     * @throws IllegalStateException if it runs past the node (a damaged node)
     */
    static long getVar(byte[] b, int[] pos) {
        long v = 0;
        int shift = 0;
        int at = pos[0];
        while (true) {
            if (at >= b.length || shift > 63) {
                throw new IllegalStateException("stream node of length=" + b.length + " is damaged at offset=" + at
                        + ": the element map is damaged");
            }
            byte x = b[at++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                break;
            }
            shift += 7;
        }
        pos[0] = at;
        return v;
    }
}
