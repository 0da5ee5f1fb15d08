package dev.colossal.server;

import java.util.Arrays;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * One B+tree of a big sorted set ({@link ZSetTreeLayout}) as a command reads and changes it: in
 * (score, member) order, or in member order. Nodes are decoded as the command reaches them and kept
 * for the rest of it; a changed node and every node above it turn dirty, and {@link #write} puts
 * them at new positions, children before parents. Nodes split past their entry or byte bounds and
 * merge with a neighbour when small, so the tree stays O(log n) deep.
 */
final class ZSetTree {

    /** What a range read is handed, entry by entry; false stops it. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(double score, byte[] member);
    }

    /** A monotone test over the tree's order: false for a prefix of the entries, true for the rest. */
    @FunctionalInterface
    interface Bound {
        boolean test(double score, byte[] member);
    }

    private final boolean byMember;
    private final int maxEntries;
    private final LongFunction<ZSetNode> loader;
    private final LongConsumer retire;
    /** Where the stored root is: loaded at the first use, as a command often reads one tree of the two. */
    private final long rootPos;
    private ZSetNode root;
    /** The leaf the command's entry changes went to, how many there were, and whether one split or merged a node. */
    private ZSetNode changedLeaf;
    private int leafChanges;
    private boolean reshaped;

    /**
     * @param rootPos    the stored root's position
     * @param byMember   member order (the score index), else (score, member) order
     * @param maxEntries entries a node holds at most ({@link ZSetTreeLayout#nodeEntries})
     * @param loader     decodes the node at a position
     * @param retire     told each stored position a change replaces or drops
     */
    ZSetTree(long rootPos, boolean byMember, int maxEntries, LongFunction<ZSetNode> loader, LongConsumer retire) {
        this.rootPos = rootPos;
        this.byMember = byMember;
        this.maxEntries = maxEntries;
        this.loader = loader;
        this.retire = retire;
    }

    /** A new tree of one empty leaf, with {@link #ZSetTree(long, boolean, int, LongFunction, LongConsumer)}'s other parameters. */
    ZSetTree(boolean byMember, int maxEntries, LongFunction<ZSetNode> loader, LongConsumer retire) {
        this(-1, byMember, maxEntries, loader, retire);
        this.root = new ZSetNode(true, 4);
    }

    /** @return whether a command reached this tree's nodes through it (the only way it changes them) */
    boolean touched() {
        return root != null;
    }

    ZSetNode root() {
        if (root == null) {
            root = loader.apply(rootPos);
        }
        return root;
    }

    private int compare(double s1, byte[] m1, double s2, byte[] m2) {
        return compare(byMember, s1, m1, s2, m2);
    }

    /** @return how (s1, m1) and (s2, m2) compare in member order if {@code byMember}, else in (score, member) order */
    static int compare(boolean byMember, double s1, byte[] m1, double s2, byte[] m2) {
        return byMember ? Arrays.compareUnsigned(m1, m2) : ZSetLayout.compare(s1, m1, 0, m1.length, s2, m2);
    }

    private ZSetNode child(ZSetNode node, int i) {
        ZSetNode c = node.loaded[i];
        if (c == null) {
            c = loader.apply(node.children[i]);
            node.loaded[i] = c;
        }
        return c;
    }

    private int childIndex(ZSetNode node, double s, byte[] m) {
        return childIndex(node, byMember, s, m);
    }

    /**
     * @return the child of inner {@code node} whose range holds (s, m): the last whose first entry
     *     is at or before it, in member order if {@code byMember}
     */
    static int childIndex(ZSetNode node, boolean byMember, double s, byte[] m) {
        int lo = 1;
        int hi = node.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(byMember, node.scores[mid], node.members[mid], s, m) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** @return the first index of leaf {@code node} whose entry is at or after (s, m) */
    private int leafIndex(ZSetNode node, double s, byte[] m) {
        int lo = 0;
        int hi = node.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(node.scores[mid], node.members[mid], s, m) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** @return the score of {@code member} in a member-ordered tree, or null */
    Double scoreOf(byte[] member) {
        ZSetNode node = root();
        while (!node.leaf) {
            node = child(node, childIndex(node, 0, member));
        }
        int i = leafIndex(node, 0, member);
        return i < node.n && Arrays.equals(node.members[i], member) ? node.scores[i] : null;
    }

    /** @return the rank of the entry (s, m), or of the first after it if it is absent */
    long rank(double s, byte[] m) {
        long r = 0;
        ZSetNode node = root();
        while (!node.leaf) {
            int i = childIndex(node, s, m);
            for (int j = 0; j < i; j++) {
                r += node.counts[j];
            }
            node = child(node, i);
        }
        return r + leafIndex(node, s, m);
    }

    /** @return how many entries fail {@code bound}: the rank of the first that passes */
    long rank(Bound bound) {
        long r = 0;
        ZSetNode node = root();
        while (!node.leaf) {
            int i = 0;
            while (i + 1 < node.n && !bound.test(node.scores[i + 1], node.members[i + 1])) {
                i++;
            }
            for (int j = 0; j < i; j++) {
                r += node.counts[j];
            }
            node = child(node, i);
        }
        int i = 0;
        while (i < node.n && !bound.test(node.scores[i], node.members[i])) {
            i++;
        }
        return r + i;
    }

    /**
     * Hands the entries from rank {@code from} on to {@code v} (towards rank 0 if {@code reverse})
     * until it says stop or the entries end.
     */
    void walk(long from, boolean reverse, Visitor v) {
        long count = root().count();
        if (from < 0 || from >= count) {
            return;
        }
        // The path down to the leaf of rank from: each level's node and the child index taken
        ZSetNode[] nodes = new ZSetNode[64];
        int[] at = new int[64];
        int depth = 0;
        ZSetNode node = root();
        long r = from;
        while (!node.leaf) {
            int i = 0;
            while (r >= node.counts[i]) {
                r -= node.counts[i++];
            }
            if (depth == nodes.length) { // members too big to share a node make a level each
                nodes = Arrays.copyOf(nodes, depth * 2);
                at = Arrays.copyOf(at, depth * 2);
            }
            nodes[depth] = node;
            at[depth++] = i;
            node = child(node, i);
        }
        int i = (int) r;
        while (true) {
            for (; i >= 0 && i < node.n; i += reverse ? -1 : 1) {
                if (!v.visit(node.scores[i], node.members[i])) {
                    return;
                }
            }
            // Up to the first level with a next child, then down its near edge
            int d = nextLevel(nodes, at, depth, reverse);
            if (d < 0) {
                return;
            }
            node = child(nodes[d], at[d]);
            for (d++; d < depth; d++) {
                nodes[d] = node;
                at[d] = reverse ? node.n - 1 : 0;
                node = child(node, at[d]);
            }
            i = reverse ? node.n - 1 : 0;
        }
    }

    /**
     * One step of a walk from a leaf to the next: up the path {@code nodes}/{@code at} (an inner
     * node a level, the child index taken) to the deepest level with a child further on, which it takes.
     *
     * @return that level, or -1 if the walk is past the tree's end
     */
    static int nextLevel(ZSetNode[] nodes, int[] at, int depth, boolean reverse) {
        int d = depth - 1;
        while (d >= 0 && (reverse ? at[d] == 0 : at[d] == nodes[d].n - 1)) {
            d--;
        }
        if (d >= 0) {
            at[d] += reverse ? -1 : 1;
        }
        return d;
    }

    /** Adds the entry (s, m), which must be absent. */
    void insert(double s, byte[] m) {
        insert(root(), s, m);
        if (overflows(root)) {
            ZSetNode top = new ZSetNode(false, 4);
            top.open(0);
            top.children[0] = root.pos;
            top.loaded[0] = root;
            top.counts[0] = root.count();
            top.set(0, root.scores[0], root.members[0]);
            root = top;
            split(top, 0);
        }
    }

    private void insert(ZSetNode node, double s, byte[] m) {
        touch(node);
        if (node.leaf) {
            int i = leafIndex(node, s, m);
            node.open(i);
            node.set(i, s, m);
            changed(node);
            return;
        }
        int i = childIndex(node, s, m);
        ZSetNode c = child(node, i);
        insert(c, s, m);
        node.counts[i]++;
        refresh(node, i, c);
        if (overflows(c)) {
            split(node, i);
        }
    }

    /** @return whether the entry (s, m) was there and is removed */
    boolean delete(double s, byte[] m) {
        if (!delete(root(), s, m)) {
            return false;
        }
        while (!root.leaf && root.n == 1) {
            ZSetNode only = child(root, 0);
            retired(root);
            root = only;
        }
        return true;
    }

    private boolean delete(ZSetNode node, double s, byte[] m) {
        if (node.leaf) {
            int i = leafIndex(node, s, m);
            if (i >= node.n || compare(node.scores[i], node.members[i], s, m) != 0) {
                return false;
            }
            touch(node);
            node.close(i, i + 1);
            changed(node);
            return true;
        }
        int i = childIndex(node, s, m);
        ZSetNode c = child(node, i);
        if (!delete(c, s, m)) {
            return false;
        }
        touch(node);
        node.counts[i]--;
        if (c.n == 0) {
            reshaped = true;
            retired(c);
            node.close(i, i + 1);
            return true;
        }
        refresh(node, i, c);
        if (c.n <= maxEntries / 4 && node.n > 1) { // at 4 entries a node (tests) a lone entry merges too
            merge(node, i + 1 < node.n ? i : i - 1);
        }
        return true;
    }

    /** Joins child {@code i + 1} of {@code node} into child {@code i} if the two fit in one node. */
    private void merge(ZSetNode node, int i) {
        ZSetNode left = child(node, i);
        ZSetNode right = child(node, i + 1);
        if (left.n + right.n > maxEntries || left.bytes() + right.bytes() > ZSetTreeLayout.NODE_BYTES) {
            return;
        }
        reshaped = true;
        touch(left);
        right.moveTail(0, left);
        node.counts[i] += node.counts[i + 1];
        retired(right);
        node.close(i + 1, i + 2);
        refresh(node, i, left);
    }

    private boolean overflows(ZSetNode node) {
        return node.n > maxEntries || node.n >= 2 && node.bytes() > ZSetTreeLayout.NODE_BYTES;
    }

    /** Splits child {@code i} of {@code node} in two (again while a half overflows). */
    private void split(ZSetNode node, int i) {
        reshaped = true;
        ZSetNode c = child(node, i);
        ZSetNode right = new ZSetNode(c.leaf, c.n);
        c.moveTail(c.middle(), right);
        node.open(i + 1);
        node.children[i + 1] = -1;
        node.loaded[i + 1] = right;
        node.counts[i] = c.count();
        node.counts[i + 1] = right.count();
        refresh(node, i, c);
        refresh(node, i + 1, right);
        if (overflows(right)) {
            split(node, i + 1);
        }
        if (overflows(c)) {
            split(node, i);
        }
    }

    private static void refresh(ZSetNode node, int i, ZSetNode c) {
        node.set(i, c.scores[0], c.members[0]);
    }

    /**
     * Gives {@code member}, which a member-ordered tree holds, the score {@code s}: its entry stays
     * where it is, in member order.
     */
    void setScore(byte[] member, double s) {
        ZSetNode node = root();
        while (true) {
            touch(node);
            if (node.leaf) {
                break;
            }
            // A separator's score is not refreshed: member order never reads it
            node = child(node, childIndex(node, 0, member));
        }
        int i = leafIndex(node, 0, member);
        if (i >= node.n || !Arrays.equals(node.members[i], member)) {
            throw new IllegalStateException("no such member in the sorted set's member tree");
        }
        node.set(i, s, member);
        changed(node);
    }

    /** Notes an entry change in {@code leaf}. */
    private void changed(ZSetNode leaf) {
        changedLeaf = leaf;
        leafChanges++;
    }

    /**
     * @return the one stored leaf a single entry change went to, if that was the command's only
     *     change and it split or merged nothing (so every other node's stored copy still routes to
     *     it: {@link ZSetTreeLayout}); else null
     */
    ZSetNode soleChangedLeaf() {
        return !reshaped && leafChanges == 1 && changedLeaf.pos >= 0 ? changedLeaf : null;
    }

    /** @return the root's stored position: as read, if no change was written since */
    long storedRoot() {
        return root == null ? rootPos : root.pos;
    }

    /** Marks {@code node} changed: its stored copy, if any, is replaced at the next {@link #write}. */
    private void touch(ZSetNode node) {
        node.dirty = true;
    }

    private void retired(ZSetNode node) {
        if (node.pos >= 0) {
            retire.accept(node.pos);
            node.pos = -1;
        }
    }

    /**
     * Writes every dirty node, children first, each at a position {@code next} gives: one no
     * stored tree of this set uses.
     *
     * @param put     stores a node's bytes at a position
     * @param written gets each node written
     * @return the root's position
     */
    long write(LongSupplier next, PositionWriter put, java.util.List<ZSetNode> written) {
        return root == null ? rootPos : write(root, next, put, written);
    }

    /** Stores one node's bytes, {@code node[0, length)}, at one position. */
    @FunctionalInterface
    interface PositionWriter {
        void put(long pos, byte[] node, int length);
    }

    /**
     * The buffer each event-loop thread encodes the nodes it writes into: a node is copied into
     * the map at once, so one buffer serves them all, and a ZADD allocates no node's bytes.
     */
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[2 * ZSetTreeLayout.NODE_BYTES]});

    private long write(ZSetNode node, LongSupplier next, PositionWriter put, java.util.List<ZSetNode> written) {
        if (!node.dirty && node.pos >= 0) {
            return node.pos;
        }
        if (!node.leaf) {
            for (int i = 0; i < node.n; i++) {
                if (node.loaded[i] != null) {
                    node.children[i] = write(node.loaded[i], next, put, written);
                }
            }
        }
        retired(node);
        node.pos = next.getAsLong();
        byte[][] scratch = SCRATCH.get();
        long length = node.bytes();
        if (length > scratch[0].length && length <= 16 * ZSetTreeLayout.NODE_BYTES) {
            scratch[0] = new byte[(int) length]; // kept: a set of long members writes nodes this big again
        }
        byte[] out = length <= scratch[0].length ? scratch[0] : new byte[(int) Math.min(length, Integer.MAX_VALUE)];
        put.put(node.pos, out, node.encode(out));
        node.dirty = false;
        written.add(node);
        return node.pos;
    }
}
