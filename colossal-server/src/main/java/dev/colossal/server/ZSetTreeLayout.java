package dev.colossal.server;

/**
 * Layout of a big sorted set: one that outgrew {@code zset-max-listpack-entries} members (or held
 * a member longer than {@code zset-max-listpack-value} bytes), where Redis holds a skiplist. It
 * keeps a small header under the user's key and two B+trees of nodes in the element map
 * ({@link ListElements}): one in (score, member) order whose inner entries carry their subtrees'
 * counts (ranks in O(log n)), one in member order (a member's score in O(log n)).
 *
 * <pre>
 *  Header: the payload of a stored value of type {@link StoredValue#ZSET}
 *  0          1        9        17       25            33             41          45
 *  +----------+--------+--------+--------+-------------+--------------+-----------+----------------+
 *  | encoding | id     | count  | next   | score root  | member root  | retired n | retired (n x 8)|
 *  | (= 2)    |        |        |        |             |              | (4)       |                |
 *  +----------+--------+--------+--------+-------------+--------------+-----------+----------------+
 *  big-endian longs and int. encoding 2 tells this header from a one-value set ({@link ZSetLayout}'s 0, 1)
 *  id       = the collection's id in the element map: its nodes' and its root's keys start with it
 *  count    = the members
 *  next     = the position the next new node takes: every live node is at a position below it
 *  roots    = the positions of the two trees' root nodes
 *  retired  = the positions of the nodes the last write replaced: dead, kept for the next write's nodes
 *  change   = optional (a header of an older build ends at the retired positions): the last write's
 *             one member change, made in a member tree leaf rewritten in place ({@link ZSetMemberChange})
 *
 *  Change: the header's bytes after the retired positions, if any
 *  0        8          9        17
 *  +--------+----------+--------+-----------------+--------+
 *  | leaf   | present  | score  | member length   | member |
 *  | (8 BE) | (0 or 1) | (8 LE) | (varint)        |        |
 *  +--------+----------+--------+-----------------+--------+
 *  leaf    = the member tree leaf's position; present 0: the member is absent (score 0), 1: it has score
 *
 *  Node: an element-map entry's value, at (id, position); a position is written once, never changed
 *  0          1
 *  +----------+----------+------------------------------------------------------------------------+
 *  | kind     | n        | n entries, ascending in the tree's order                               |
 *  | (1 byte) | (varint) | leaf:  score (8, LE) | member length (varint) | member                  |
 *  |          |          | inner: child (8, BE) | count (8, BE) | score (8, LE) | length | member  |
 *  +----------+----------+------------------------------------------------------------------------+
 *  kind 0 = leaf, 1 = inner; an inner entry names a child node, the members under it, and its first entry
 * </pre>
 *
 * <p>A write is copy-on-write: every node it changes is written at a position no stored tree uses,
 * then the header (the one commit point). Those positions are the ones the last header retired
 * first, whose nodes died when that header landed (a put over a dead entry costs one map write
 * where a new key and the removal of the dead one cost two), then new ones from {@code next} on.
 * After the header, the write removes the retired positions it did not reuse, and of those it
 * retires itself all but {@link #MAX_REUSED}, which stay for the next write. A kill before the
 * header leaves its nodes at positions past {@code next} or at positions the header it did not
 * replace retires. {@link ListCollector} frees both: it keeps only {@code [0, next)} less the
 * retired positions ({@link #held}); so does the next write, which puts its nodes over them or removes them.
 *
 * <p>One exception, the write that changes one member's entry and no tree's shape (a ZADD, a ZREM,
 * a ZPOPMIN of one member): its member tree leaf is rewritten at its own position, after the header,
 * and the nodes above it are not written at all, as nothing in them is read but their children's
 * positions (which stay) and their separators (which still route: an entry enters a leaf only
 * through its separator, and a leaf's first entry leaving it leaves the separator below the rest).
 * The member tree's counts are therefore not kept; ranks come from the score tree's. The header
 * names that change, which a reader of the leaf applies until the rewrite has landed, and which
 * the next write makes sure the leaf holds before its own header replaces this one. Such a
 * position is the one a node may be rewritten at: the leaf's, while the tree holds it.
 */
final class ZSetTreeLayout {

    /** The encoding byte of a big sorted set's header. */
    static final byte TREE = 2;
    static final int ENCODING_OFFSET = ZSetLayout.ENCODING_OFFSET;
    static final int ID_OFFSET = ENCODING_OFFSET + Byte.BYTES;
    static final int COUNT_OFFSET = ID_OFFSET + Long.BYTES;
    static final int NEXT_OFFSET = COUNT_OFFSET + Long.BYTES;
    static final int SCORE_ROOT_OFFSET = NEXT_OFFSET + Long.BYTES;
    static final int MEMBER_ROOT_OFFSET = SCORE_ROOT_OFFSET + Long.BYTES;
    static final int RETIRED_COUNT_OFFSET = MEMBER_ROOT_OFFSET + Long.BYTES;
    static final int RETIRED_OFFSET = RETIRED_COUNT_OFFSET + Integer.BYTES;
    /** Offsets in the member change record after the retired positions. */
    static final int CHANGE_LEAF_OFFSET = 0;
    static final int CHANGE_PRESENT_OFFSET = CHANGE_LEAF_OFFSET + Long.BYTES;
    static final int CHANGE_SCORE_OFFSET = CHANGE_PRESENT_OFFSET + Byte.BYTES;
    static final int CHANGE_MEMBER_OFFSET = CHANGE_SCORE_OFFSET + ZSetLayout.SCORE_LENGTH;

    static final byte LEAF = 0;
    static final byte INNER = 1;
    static final int KIND_OFFSET = 0;
    static final int N_OFFSET = KIND_OFFSET + Byte.BYTES;
    /** An inner entry's child position and count, before its first entry's score. */
    static final int CHILD_LENGTH = 2 * Long.BYTES;

    /** Bytes past which a node of two entries or more splits: a node is read and rewritten whole. */
    static final int NODE_BYTES = 4096;
    /** Entries a node holds at most, at the default {@code zset-max-listpack-entries}. */
    static final int MAX_NODE_ENTRIES = 128;
    /** Retired nodes a write leaves in the map for the next write to put its nodes over; it removes the rest. */
    static final int MAX_REUSED = 64;
    /**
     * A set keeps retired nodes for reuse from this many full nodes' worth of members on (4,096 at
     * the default node size): below, the few a write leaves would be a large part of the set.
     */
    static final int REUSE_FROM_NODES = 32;
    /** More retired nodes than this and a write rebuilds the set under a new id instead (a header stays small). */
    static final int MAX_RETIRED = 1024;

    private static final java.lang.invoke.VarHandle INT_BE =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private ZSetTreeLayout() {}

    /**
     * @return the entries a node holds at most: {@code zset-max-listpack-entries} within
     *     [4, {@link #MAX_NODE_ENTRIES}], so that a lowered limit makes small nodes and deep trees,
     *     which tests use
     */
    static int nodeEntries(long maxListpackEntries) {
        return Math.clamp(maxListpackEntries, 4, MAX_NODE_ENTRIES);
    }

    /** @return a header's payload, naming no member change */
    static byte[] header(long id, long count, long next, long scoreRoot, long memberRoot, long[] retired, int nRetired) {
        return header(id, count, next, scoreRoot, memberRoot, retired, nRetired, null);
    }

    /** @return a header's payload, naming {@code change} (or none, if null) */
    static byte[] header(long id, long count, long next, long scoreRoot, long memberRoot, long[] retired, int nRetired,
                         ZSetMemberChange change) {
        int end = RETIRED_OFFSET + nRetired * Long.BYTES;
        byte[] h = new byte[change == null ? end : end + change.length()];
        if (change != null) {
            change.put(h, end);
        }
        h[ENCODING_OFFSET] = TREE;
        ListLayout.putLong(h, ID_OFFSET, id);
        ListLayout.putLong(h, COUNT_OFFSET, count);
        ListLayout.putLong(h, NEXT_OFFSET, next);
        ListLayout.putLong(h, SCORE_ROOT_OFFSET, scoreRoot);
        ListLayout.putLong(h, MEMBER_ROOT_OFFSET, memberRoot);
        INT_BE.set(h, RETIRED_COUNT_OFFSET, nRetired);
        for (int i = 0; i < nRetired; i++) {
            ListLayout.putLong(h, RETIRED_OFFSET + i * Long.BYTES, retired[i]);
        }
        return h;
    }

    /** @return whether the sorted set {@code e} holds is a tree */
    static boolean isTree(KeyValueStore.Entry e) {
        return e.type() == StoredValue.ZSET && e.length() > ENCODING_OFFSET && e.array()[e.offset() + ENCODING_OFFSET] == TREE;
    }

    /** @return whether the stored form {@code stored} of a sorted set is a tree's header */
    static boolean isTree(byte[] stored) {
        int at = StoredValue.payloadOffset(stored) + ENCODING_OFFSET;
        return at < stored.length && stored[at] == TREE;
    }

    /** @return the long at {@code at} of the header {@code e} holds */
    static long get(KeyValueStore.Entry e, int at) {
        if (e.length() < RETIRED_OFFSET) {
            throw ZSetLayout.damaged("a big sorted set's header has length " + e.length(), 0);
        }
        return ListLayout.getLong(e.array(), e.offset() + at);
    }

    /** @return the retired positions of header {@code e} */
    static long[] retired(KeyValueStore.Entry e) {
        int n = retiredCount(e);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = ListLayout.getLong(e.array(), e.offset() + RETIRED_OFFSET + i * Long.BYTES);
        }
        return out;
    }

    /** @return the member change header {@code e} names, or null */
    static ZSetMemberChange change(KeyValueStore.Entry e) {
        int end = RETIRED_OFFSET + retiredCount(e) * Long.BYTES;
        return end == e.length() ? null : ZSetMemberChange.get(e.array(), e.offset() + end, e.offset() + e.length());
    }

    private static int retiredCount(KeyValueStore.Entry e) {
        if (e.length() < RETIRED_OFFSET) {
            throw ZSetLayout.damaged("a big sorted set's header has length " + e.length(), 0);
        }
        int n = (int) INT_BE.get(e.array(), e.offset() + RETIRED_COUNT_OFFSET);
        if (n < 0 || RETIRED_OFFSET + (long) n * Long.BYTES > e.length()) {
            throw ZSetLayout.damaged("a big sorted set's header names " + n + " retired nodes in " + e.length() + " bytes", 0);
        }
        return n;
    }

    /**
     * @return the {@link ListCollector}'s view of header {@code e}: the ranges of positions it holds,
     *     {@code [0, next)} less the retired ones, if it holds collection {@code id}, else null
     */
    static long[] held(KeyValueStore.Entry e, long id) {
        if (!isTree(e) || e.length() < RETIRED_OFFSET || get(e, ID_OFFSET) != id) {
            return null;
        }
        long[] retired = retired(e);
        java.util.Arrays.sort(retired);
        long[] ranges = new long[2 * retired.length + 2];
        long from = 0;
        int k = 0;
        for (long p : retired) {
            ranges[k++] = from;
            ranges[k++] = p;
            from = p + 1;
        }
        ranges[k++] = from;
        ranges[k] = get(e, NEXT_OFFSET);
        return ranges;
    }
}
