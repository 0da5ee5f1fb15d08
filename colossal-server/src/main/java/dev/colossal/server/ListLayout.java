package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Layout of a list: while it is small, its elements packed behind a header under the user's key
 * in the database's map, so that a push or a pop writes one entry; once big, a header holding its
 * first and last elements packed (its head and tail runs) and the rest in nodes of packed elements
 * in the database's element map ({@link ListElements}), so that a push or a pop still writes the
 * header alone but now and then, and a range reads a node per run of elements.
 *
 * <pre>
 *  Header: the payload of a stored value of type {@link StoredValue#LIST} (after its flags and expiry)
 *  0                8                16               24               32
 *  +----------------+----------------+----------------+----------------+
 *  | id             | first          | count          | sets           |   big-endian longs
 *  +----------------+----------------+----------------+----------------+
 *  id    = the collection's id: its elements' and its root's keys start with it
 *  first = the position of element 0; LPUSH decrements it, LPOP increments it (it may be negative)
 *  count = the number of elements, at positions [first, first + count)
 *  sets  = LSETs so far: an LSET of an element the header holds changes no other field, and WATCH
 *          sees a change by the header's bytes
 *
 *  Packed list: the same fields (id and first 0), then every element, when they fit in
 *  PACKED_COUNT elements of PACKED_BYTES bytes together (lengths included), or are one element of
 *  PACKED_ONE_BYTES at most; a header longer than 32 bytes with id 0 is a packed list's
 *  32               36                 36 + n           40 + n
 *  +----------------+------------------+----------------+-------------
 *  | n (4, BE)      | element 0 bytes  | length (4, BE) | element 1 ...
 *  +----------------+------------------+----------------+-------------
 *
 *  Big list (since format 2): a header longer than 32 bytes whose id is not 0; its elements are a
 *  head run, then nodes [headNode, endNode) in the element map, then a tail run, in list order
 *  0       8          16      24     32         40          42          44            48                      end-8     end
 *  +-------+----------+-------+------+----------+-----------+-----------+-------------+-----------+-----------+---------+
 *  | id    | headNode | count | sets | endNode  | headBytes | headCount | tailCount   | head run  | tail run  | [moved] |
 *  +-------+----------+-------+------+----------+-----------+-----------+-------------+-----------+-----------+---------+
 *  headBytes = the head run's length (2, BE), so that a push finds the tail run without walking the
 *  head's elements; 0 with a headCount when it is over 65,535 (an LSET's big element) or in headers
 *  written before it was kept: the run is then walked
 *  runs packed as above; a push writes the header alone until its run passes RUN_BYTES, when the
 *  run goes to a node of its own (headNode - 1 or endNode) and the push starts a new one
 *  tailCount's top bit (MOVED_FLAG) set: the header ends with moved (8, BE), the one node whose
 *  elements are not at its own position but at MOVED_BASE + moved, where an LSET in the middle
 *  wrote them; a node the header holds is never written in place, so an LSET writes the node's new
 *  elements where no header looks (the moved position, or the node's own once moved names it), then
 *  the header that looks there, then removes the copy no header looks at any more
 *  Node entry (element map):     key = id (8) | node (8),     value = elements packed as above
 *  Moved node (element map):     key = id (8) | MOVED_BASE + moved (8), value = as a node's
 *  Count entry (element map):    key = id (8) | COUNTS_BASE + floor(node / COUNTS_NODES) (8),
 *                                value = one byte per node of that block: its element count
 *  (a node's count never changes while a header holds it, so a count entry is written with each
 *  new node, before the header, and LINDEX in the middle sums counts instead of reading nodes)
 *
 *  Element entry (element map):  key = id (8) | position (8), value = the element's bytes
 *  (lists of 32-byte headers, written before big lists had nodes: read, and rewritten as a big
 *  list by their first change)
 *  Root entry (element map):     key = id (8),                value = its owners:
 *  +-------------------+-----------+-------------------+-----------+
 *  | length (4, BE)    | owner key | length (4, BE)    | owner key | ...
 *  +-------------------+-----------+-------------------+-----------+
 *  one owner normally; two while RENAME moves the header from one key to another
 * </pre>
 *
 * <p>The header is the commit point: an element outside {@code [first, first + count)} of the
 * header its root's owner holds now, or of an id no header holds, is garbage whatever a crash
 * left, and {@link ListCollector} removes it.
 */
final class ListLayout {

    static final int ID_OFFSET = 0;
    static final int FIRST_OFFSET = ID_OFFSET + Long.BYTES;
    static final int COUNT_OFFSET = FIRST_OFFSET + Long.BYTES;
    static final int SETS_OFFSET = COUNT_OFFSET + Long.BYTES;
    static final int HEADER_LENGTH = SETS_OFFSET + Long.BYTES;

    static final int HEAD_NODE_OFFSET = FIRST_OFFSET;
    static final int END_NODE_OFFSET = HEADER_LENGTH;
    static final int HEAD_BYTES_OFFSET = END_NODE_OFFSET + Long.BYTES;
    static final int HEAD_COUNT_OFFSET = HEAD_BYTES_OFFSET + Short.BYTES;
    static final int TAIL_COUNT_OFFSET = HEAD_COUNT_OFFSET + Short.BYTES;
    static final int NODES_HEADER_LENGTH = TAIL_COUNT_OFFSET + Integer.BYTES;
    /**
     * The bytes a big list's run takes (lengths included) before the next push moves it to a node:
     * every push rewrites the header with both runs, and every range reads one node per run.
     */
    static final int RUN_BYTES = 256;
    /** An element that takes more than this (its length included) is a node of its own at once, never copied through a run. */
    static final int OWN_NODE_BYTES = RUN_BYTES / 2;

    /** The top bit of the tail count's field: a moved node's number ends the header. */
    static final int MOVED_FLAG = 0x8000_0000;
    /** The length of the moved node's number that ends a header with {@link #MOVED_FLAG}. */
    static final int MOVED_BYTES = Long.BYTES;
    /** Where moved nodes' positions start: as far below every node's number as count entries are above. */
    static final long MOVED_BASE = -(1L << 62);
    /** What {@link #movedNode} answers for a header that moved no node. */
    static final long NOT_MOVED = Long.MIN_VALUE;

    /** Nodes whose counts one count entry holds. */
    static final int COUNTS_NODES = 256;
    /** Where count entries' positions start: far from every node's number, which starts at 0 and moves by one a run. */
    static final long COUNTS_BASE = 1L << 62;

    static final int ROOT_KEY_LENGTH = Long.BYTES;
    static final int POSITION_OFFSET = ROOT_KEY_LENGTH;
    static final int ELEMENT_KEY_LENGTH = POSITION_OFFSET + Long.BYTES;
    static final int OWNER_LENGTH_BYTES = Integer.BYTES;
    /** The length in front of each packed element. */
    static final int PACKED_LENGTH_BYTES = Integer.BYTES;
    /**
     * The most elements a packed list holds, as many as Redis packs of a hash or a sorted set by
     * default: each write rewrites them all, where a bigger list's push writes one.
     */
    static final int PACKED_COUNT = 128;
    /**
     * The most bytes a packed list's elements take, lengths included: each write rewrites them all,
     * so a push onto a packed list costs about what a push onto an unpacked one does at this size.
     */
    static final int PACKED_BYTES = 512;
    /**
     * The most bytes a packed list of one element takes, its length included: a queue that its
     * workers keep empty holds one job at a time, of any size, and nothing is rewritten but it.
     */
    static final int PACKED_ONE_BYTES = 16 << 10;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private ListLayout() {}

    /** @return a header's payload */
    static byte[] header(long id, long first, long count, long sets) {
        byte[] h = new byte[HEADER_LENGTH];
        LONG_BE.set(h, ID_OFFSET, id);
        LONG_BE.set(h, FIRST_OFFSET, first);
        LONG_BE.set(h, COUNT_OFFSET, count);
        LONG_BE.set(h, SETS_OFFSET, sets);
        return h;
    }

    /** @return whether a list header of {@code length} bytes at {@code at} of {@code b} is a big list's ({@link #NODES_HEADER_LENGTH}) */
    static boolean hasNodes(byte[] b, int at, int length) {
        return length >= NODES_HEADER_LENGTH && getLong(b, at + ID_OFFSET) != 0;
    }

    /** @return the node a big list's header of {@code length} bytes at {@code at} of {@code b} moved, or {@link #NOT_MOVED} */
    static long movedNode(byte[] b, int at, int length) {
        return (getInt(b, at + TAIL_COUNT_OFFSET) & MOVED_FLAG) == 0 || length < NODES_HEADER_LENGTH + MOVED_BYTES
                ? NOT_MOVED : getLong(b, at + length - MOVED_BYTES);
    }

    /** @return the position where node {@code node}'s elements are while the header names it moved */
    static long movedPosition(long node) {
        return MOVED_BASE + node;
    }

    /** @return the position of the count entry holding node {@code node}'s count */
    static long countsOf(long node) {
        return COUNTS_BASE + Math.floorDiv(node, COUNTS_NODES);
    }

    /** @return the int at {@code at} of {@code b} */
    static int getInt(byte[] b, int at) {
        return (int) INT_BE.get(b, at);
    }

    /** Writes {@code v} at {@code at} of {@code b}, big-endian. */
    static void putInt(byte[] b, int at, int v) {
        INT_BE.set(b, at, v);
    }

    /** @return the unsigned 16-bit number at {@code at} of {@code b} */
    static int getShort(byte[] b, int at) {
        return Short.toUnsignedInt((short) SHORT_BE.get(b, at));
    }

    /** Writes {@code v}, at most 65,535, at {@code at} of {@code b}, big-endian. */
    static void putShort(byte[] b, int at, int v) {
        SHORT_BE.set(b, at, (short) v);
    }

    /** @return the long at {@code at} of {@code b} */
    static long getLong(byte[] b, int at) {
        return (long) LONG_BE.get(b, at);
    }

    /** Writes {@code v} at {@code at} of {@code b}, big-endian. */
    static void putLong(byte[] b, int at, long v) {
        LONG_BE.set(b, at, v);
    }

    /** @return the bytes the packed element at {@code at} of {@code b} takes, its length included (damage aside) */
    static int packedSize(byte[] b, int at) {
        return PACKED_LENGTH_BYTES + (int) INT_BE.get(b, at);
    }

    /** Packs {@code v[off, off + n)} at {@code at} of {@code b}; @return where the next element goes */
    static int putPacked(byte[] b, int at, byte[] v, int off, int n) {
        INT_BE.set(b, at, n);
        System.arraycopy(v, off, b, at + PACKED_LENGTH_BYTES, n);
        return at + PACKED_LENGTH_BYTES + n;
    }

    /** @return the key of the element at {@code position} of collection {@code id} */
    static byte[] elementKey(long id, long position) {
        byte[] k = new byte[ELEMENT_KEY_LENGTH];
        LONG_BE.set(k, ID_OFFSET, id);
        LONG_BE.set(k, POSITION_OFFSET, position);
        return k;
    }

    /** Writes the key of the element at {@code position} of collection {@code id} at {@code at} of {@code b}. */
    static void putElementKey(byte[] b, int at, long id, long position) {
        LONG_BE.set(b, at + ID_OFFSET, id);
        LONG_BE.set(b, at + POSITION_OFFSET, position);
    }

    /** @return the key of collection {@code id}'s root */
    static byte[] rootKey(long id) {
        byte[] k = new byte[ROOT_KEY_LENGTH];
        LONG_BE.set(k, ID_OFFSET, id);
        return k;
    }

    /** @return a root's value: the owner keys */
    static byte[] rootValue(byte[]... keys) {
        int n = 0;
        for (byte[] k : keys) {
            n += OWNER_LENGTH_BYTES + k.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] k : keys) {
            INT_BE.set(out, at, k.length);
            System.arraycopy(k, 0, out, at + OWNER_LENGTH_BYTES, k.length);
            at += OWNER_LENGTH_BYTES + k.length;
        }
        return out;
    }

    /**
     * @return the owner keys a root's value holds
     * @throws IllegalStateException if it is not a root's value
     */
    static byte[][] ownersOf(byte[] root) {
        java.util.List<byte[]> keys = new java.util.ArrayList<>(1);
        int at = 0;
        while (at < root.length) {
            if (root.length - at < OWNER_LENGTH_BYTES) {
                throw new IllegalStateException("list root of length=" + root.length + " is damaged at offset=" + at);
            }
            int n = (int) INT_BE.get(root, at);
            at += OWNER_LENGTH_BYTES;
            if (n < 0 || n > root.length - at) {
                throw new IllegalStateException("list root of length=" + root.length + " is damaged at offset=" + at);
            }
            keys.add(java.util.Arrays.copyOfRange(root, at, at + n));
            at += n;
        }
        return keys.toArray(new byte[0][]);
    }
}
