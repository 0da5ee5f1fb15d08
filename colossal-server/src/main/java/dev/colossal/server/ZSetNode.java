package dev.colossal.server;

import java.util.Arrays;

/**
 * One node of a big sorted set's tree ({@link ZSetTreeLayout}), decoded for a command: a leaf's
 * entries, or an inner node's children with their counts and first entries. A node a command
 * changes is {@linkplain #dirty dirty} until {@link ZSetTree#write} puts it at a new position.
 */
final class ZSetNode {

    final boolean leaf;
    /** Where the node is stored, or -1 for a node not yet written. */
    long pos;
    boolean dirty;
    int n;
    /** A leaf's entries; an inner node's children's first entries. */
    double[] scores;
    byte[][] members;
    /** An inner node's children's positions, counts, and those decoded by this command (or null). */
    long[] children;
    long[] counts;
    ZSetNode[] loaded;
    /**
     * The bytes the members' lengths and bytes take in {@link #encode}'s output, kept as entries
     * come and go: a write asks a node's size at every level it passes, and summing it there was a
     * tenth of a ZADD.
     */
    private long memberBytes;

    ZSetNode(boolean leaf, int capacity) {
        this.leaf = leaf;
        this.pos = -1;
        this.dirty = true;
        int c = Math.max(4, capacity);
        scores = new double[c];
        members = new byte[c][];
        if (!leaf) {
            children = new long[c];
            counts = new long[c];
            loaded = new ZSetNode[c];
        }
    }

    /** @return the node stored at {@code pos} as {@code raw} */
    static ZSetNode decode(byte[] raw, long pos) {
        return decode(raw, raw.length, pos);
    }

    /** @return the node stored at {@code pos} as {@code raw[0, length)} */
    static ZSetNode decode(byte[] raw, int length, long pos) {
        if (length <= ZSetTreeLayout.N_OFFSET) {
            throw ZSetLayout.damaged("a tree node of " + length + " bytes", 0);
        }
        boolean leaf = raw[ZSetTreeLayout.KIND_OFFSET] == ZSetTreeLayout.LEAF;
        int[] at = {ZSetTreeLayout.N_OFFSET};
        int n = HashLayout.getVarint(raw, at, length);
        ZSetNode node = new ZSetNode(leaf, n + 1);
        for (int i = 0; i < n; i++) {
            if (!leaf) {
                node.children[i] = ListLayout.getLong(raw, at[0]);
                node.counts[i] = ListLayout.getLong(raw, at[0] + Long.BYTES);
                at[0] += ZSetTreeLayout.CHILD_LENGTH;
            }
            if (at[0] + ZSetLayout.SCORE_LENGTH > length) {
                throw ZSetLayout.damaged("a score runs past a tree node's end", at[0]);
            }
            node.scores[i] = ZSetLayout.getScore(raw, at[0]);
            at[0] += ZSetLayout.SCORE_LENGTH;
            int m = HashLayout.getVarint(raw, at, length);
            if (at[0] + m > length || at[0] + m < 0) {
                throw ZSetLayout.damaged("a member runs past a tree node's end", at[0]);
            }
            node.members[i] = Arrays.copyOfRange(raw, at[0], at[0] + m);
            at[0] += m;
        }
        node.n = n;
        // what the members took of the node's bytes: the rest is the count and the fixed parts
        node.memberBytes = at[0] - ZSetTreeLayout.N_OFFSET - HashLayout.varintLength(n) - (long) n * node.fixedBytes();
        node.pos = pos;
        node.dirty = false;
        return node;
    }

    /** @return a copy of this stored node that a command may change without touching this one (members are shared: never changed) */
    ZSetNode copy() {
        ZSetNode c = new ZSetNode(leaf, n + 1);
        System.arraycopy(scores, 0, c.scores, 0, n);
        System.arraycopy(members, 0, c.members, 0, n);
        if (!leaf) {
            System.arraycopy(children, 0, c.children, 0, n);
            System.arraycopy(counts, 0, c.counts, 0, n);
        }
        c.n = n;
        c.pos = pos;
        c.dirty = dirty;
        c.memberBytes = memberBytes;
        return c;
    }

    /** @return the node's bytes */
    byte[] encode() {
        byte[] out = new byte[(int) Math.min(bytes(), Integer.MAX_VALUE)];
        encode(out);
        return out;
    }

    /**
     * Writes the node's bytes at the start of {@code out}, which holds at least {@link #bytes}.
     *
     * @return their length
     */
    int encode(byte[] out) {
        long length = bytes();
        if (length > StoredValue.MAP_MAX_VALUE) {
            throw new ReplyException("ERR a node of this sorted set would exceed the largest entry this server stores ("
                    + StoredValue.MAP_MAX_VALUE + " bytes); keep large members under keys of their own");
        }
        out[ZSetTreeLayout.KIND_OFFSET] = leaf ? ZSetTreeLayout.LEAF : ZSetTreeLayout.INNER;
        int at = HashLayout.putVarint(out, ZSetTreeLayout.N_OFFSET, n);
        for (int i = 0; i < n; i++) {
            if (!leaf) {
                ListLayout.putLong(out, at, children[i]);
                ListLayout.putLong(out, at + Long.BYTES, counts[i]);
                at += ZSetTreeLayout.CHILD_LENGTH;
            }
            ZSetLayout.putScore(out, at, scores[i]);
            at = HashLayout.putVarint(out, at + ZSetLayout.SCORE_LENGTH, members[i].length);
            System.arraycopy(members[i], 0, out, at, members[i].length);
            at += members[i].length;
        }
        return at;
    }

    /** @return the length of {@link #encode}'s bytes */
    long bytes() {
        return ZSetTreeLayout.N_OFFSET + HashLayout.varintLength(n) + (long) n * fixedBytes() + memberBytes;
    }

    private long entryBytes(int i) {
        return fixedBytes() + memberBytes(members[i].length);
    }

    /** @return what every entry takes whatever its member: an inner entry's child and count, and the score */
    private int fixedBytes() {
        return (leaf ? 0 : ZSetTreeLayout.CHILD_LENGTH) + ZSetLayout.SCORE_LENGTH;
    }

    private static long memberBytes(int length) {
        return HashLayout.varintLength(length) + length;
    }

    /** Puts entry (s, m) in slot {@code i}, an {@link #open}ed one or one whose entry it replaces. */
    void set(int i, double s, byte[] m) {
        if (members[i] != null) {
            memberBytes -= memberBytes(members[i].length);
        }
        scores[i] = s;
        members[i] = m;
        memberBytes += memberBytes(m.length);
    }

    /** @return the members under this node */
    long count() {
        if (leaf) {
            return n;
        }
        long c = 0;
        for (int i = 0; i < n; i++) {
            c += counts[i];
        }
        return c;
    }

    /** Opens a slot at {@code i} (the caller fills it with {@link #set}). */
    void open(int i) {
        if (n == scores.length) {
            int c = n * 2;
            scores = Arrays.copyOf(scores, c);
            members = Arrays.copyOf(members, c);
            if (!leaf) {
                children = Arrays.copyOf(children, c);
                counts = Arrays.copyOf(counts, c);
                loaded = Arrays.copyOf(loaded, c);
            }
        }
        System.arraycopy(scores, i, scores, i + 1, n - i);
        System.arraycopy(members, i, members, i + 1, n - i);
        if (!leaf) {
            System.arraycopy(children, i, children, i + 1, n - i);
            System.arraycopy(counts, i, counts, i + 1, n - i);
            System.arraycopy(loaded, i, loaded, i + 1, n - i);
        }
        members[i] = null;
        n++;
    }

    /** Removes the entries {@code [from, to)}. */
    void close(int from, int to) {
        int k = to - from;
        for (int i = from; i < to; i++) {
            memberBytes -= memberBytes(members[i].length);
        }
        System.arraycopy(scores, to, scores, from, n - to);
        System.arraycopy(members, to, members, from, n - to);
        if (!leaf) {
            System.arraycopy(children, to, children, from, n - to);
            System.arraycopy(counts, to, counts, from, n - to);
            System.arraycopy(loaded, to, loaded, from, n - to);
            Arrays.fill(loaded, n - k, n, null);
        }
        Arrays.fill(members, n - k, n, null);
        n -= k;
    }

    /** Moves the entries {@code [from, n)} to {@code to}'s end. */
    void moveTail(int from, ZSetNode to) {
        for (int i = from; i < n; i++) {
            int j = to.n;
            to.open(j);
            to.set(j, scores[i], members[i]);
            if (!leaf) {
                to.children[j] = children[i];
                to.counts[j] = counts[i];
                to.loaded[j] = loaded[i];
            }
        }
        close(from, n);
    }

    /** @return the index at which this node's entries first exceed {@code half} of its bytes (at least 1, at most n - 1) */
    int middle() {
        long total = bytes();
        long sum = 0;
        int i = 0;
        while (i < n - 1 && (i == 0 || sum < total / 2)) {
            sum += entryBytes(i++);
        }
        return Math.max(1, Math.min(i, n - 1));
    }
}
